package config

import (
	"path/filepath"
	"reflect"

	"github.com/knadh/koanf/v2"
)

// The workspace layer: which directory is the workspace, the entries whose
// unset keys default to it (WorkspaceUser), and where relative paths in
// entries are taken from (PathKeyer).

// WorkspaceUser is implemented (with a pointer receiver) by plugin config
// types that default some keys to the workspace, such as fslocal's cwd and
// root. UseWorkspace sets each such key that is still unset to dir.
type WorkspaceUser interface {
	UseWorkspace(dir string)
}

// DirUser is implemented (with a pointer receiver) by plugin config types
// that take paths against the deployment's own directory, such as exec's
// command and its working directory (plugin-protocol.md §3). UseDir sets
// it to the deployment file's directory, or to the working directory
// (Options.Dir, else the process's) for a deployment without a file.
type DirUser interface {
	UseDir(dir string)
}

// PathKeyer is implemented (with a pointer receiver) by plugin config types
// whose keys hold file paths, such as fslocal's cwd and root. Load makes a
// relative value of each such top-level key absolute before decoding:
// against the config file's directory when the value comes from the file
// (as `workspace:` is), and against the working directory (Options.Dir)
// when it comes from the environment or a flag. So one file confines the
// same way wherever it is started from.
type PathKeyer interface {
	PathKeys() []string
}

// absolutePaths makes each relative string value of e's path keys
// (PathKeyer) under the koanf path config absolute: against the file's
// directory when the value comes from the file, else against Dir.
func (l *loader) absolutePaths(k *koanf.Koanf, e *entryInfo, config string) {
	pk, ok := reflect.New(e.plugin.ConfigType()).Interface().(PathKeyer)
	if !ok {
		return
	}
	for _, key := range pk.PathKeys() {
		v, ok := k.Get(config + "." + key).(string)
		if !ok || v == "" || filepath.IsAbs(v) {
			continue
		}
		base := l.opts.Dir
		if _, layered := l.origin[e.id+"."+key]; !layered && l.opts.File != "" {
			base = filepath.Dir(l.opts.File)
		}
		if base == "" {
			continue // the process working directory, when the plugin loads
		}
		_ = k.Set(config+"."+key, filepath.Join(base, v)) // a string over a string cannot fail
	}
}

// workspace picks the workspace: --workspace, else DSH_WORKSPACE, else the
// file's `workspace` (relative to the file's directory), else Dir; always
// absolute (relative flag and env values are taken against Dir).
func (l *loader) workspace(fromFile, fromEnv string) (string, string) {
	ws, base, from := l.opts.Workspace, l.opts.Dir, "flag"
	switch {
	case ws != "":
	case fromEnv != "":
		ws, from = fromEnv, "env"
	case fromFile != "":
		ws, from = fromFile, "file"
		base = filepath.Dir(l.opts.File)
	default:
		ws, from = ".", "default"
	}
	if !filepath.IsAbs(ws) && base != "" {
		ws = filepath.Join(base, ws)
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return ws, from
	}
	return abs, from
}

// deploymentDir is the directory DirUser configs get: the file's, else
// Dir, else the process working directory; always absolute.
func (l *loader) deploymentDir() string {
	dir := l.opts.Dir
	if l.opts.File != "" {
		dir = filepath.Dir(l.opts.File)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// withWorkspace returns cfg with the workspace filled into the keys it
// leaves unset, when its type is a WorkspaceUser, and with dir set when it
// is a DirUser (dir is asked only then); else cfg itself.
func withWorkspace(cfg any, workspace string, dir func() string) any {
	ptr := reflect.New(reflect.TypeOf(cfg))
	ptr.Elem().Set(reflect.ValueOf(cfg))
	wu, isWU := ptr.Interface().(WorkspaceUser)
	du, isDU := ptr.Interface().(DirUser)
	if isWU && workspace != "" {
		wu.UseWorkspace(workspace)
	}
	if isDU {
		du.UseDir(dir())
	}
	if (!isWU || workspace == "") && !isDU {
		return cfg
	}
	return ptr.Elem().Interface()
}
