package config

import (
	"path/filepath"
	"reflect"
)

// The workspace layer: which directory is the workspace, and the entries
// whose unset keys default to it (WorkspaceUser).

// WorkspaceUser is implemented (with a pointer receiver) by plugin config
// types that default some keys to the workspace, such as fslocal's cwd and
// root. UseWorkspace sets each such key that is still unset to dir.
type WorkspaceUser interface {
	UseWorkspace(dir string)
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

// withWorkspace returns cfg with the workspace filled into the keys it
// leaves unset, when its type is a WorkspaceUser; else cfg itself.
func withWorkspace(cfg any, workspace string) any {
	if workspace == "" {
		return cfg
	}
	ptr := reflect.New(reflect.TypeOf(cfg))
	ptr.Elem().Set(reflect.ValueOf(cfg))
	wu, ok := ptr.Interface().(WorkspaceUser)
	if !ok {
		return cfg
	}
	wu.UseWorkspace(workspace)
	return ptr.Elem().Interface()
}
