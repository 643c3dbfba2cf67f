package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/knadh/koanf/maps"
	"github.com/knadh/koanf/parsers/json"
	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/v2"
)

// The file layer: the deployment file (or the embedded default), checked
// strictly for its shape; each entry's config is decoded later, once the
// other layers are merged over it.

// read loads the file (or the default) into a raw tree.
//
// The file's parser is called directly rather than through a koanf.Koanf:
// loading into an empty Koanf and reading it back with Raw gives the same
// tree (the parsed map with non-string keys spelled as strings, which
// maps.IntfaceKeysToStrings does as koanf's merge would) but also flattens
// it and deep-copies it through reflection, work a one-shot `dshhost call`
// does not need. The layers are merged by koanf in Load.
func (l *loader) read() (map[string]any, error) {
	if l.opts.File == "" {
		l.source = DefaultSource
		return defaultTree(), nil
	}
	l.source = l.opts.File
	var parser koanf.Parser
	switch strings.ToLower(filepath.Ext(l.opts.File)) {
	case ".yaml", ".yml":
		parser = yaml.Parser()
	case ".json":
		parser = json.Parser()
	case ".toml":
		parser = toml.Parser()
	default:
		return nil, errors.New("unknown config format: use a .yaml, .yml, .json or .toml file")
	}
	data, err := ReadFile(l.opts.File)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		// YAML, JSON and TOML are UTF-8; their parsers would turn each bad
		// byte into U+FFFD, silently naming another path.
		return nil, errors.New("not valid UTF-8")
	}
	raw, err := parser.Unmarshal(data)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		raw = map[string]any{}
	}
	maps.IntfaceKeysToStrings(raw)
	return raw, nil
}

// maxFileSize bounds a deployment file: 16 MiB, far beyond any real one.
const maxFileSize = 16 << 20

// ReadFile reads the deployment file at path, refusing anything but a
// regular file of at most maxFileSize bytes. It opens with O_NONBLOCK and
// checks the opened file with fstat, so a FIFO or device put where the
// file was (by mistake, or by swapping it under a watching serve) is an
// error at once, never a read that blocks a load or a reload.
// Errors: the open's, `not a regular file (<kind>)`, `larger than 16 MiB`.
func ReadFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", kindOf(fi.Mode()))
	}
	if fi.Size() > maxFileSize {
		return nil, fmt.Errorf("larger than %d MiB", maxFileSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("larger than %d MiB", maxFileSize>>20)
	}
	return data, nil
}

// kindOf names a non-regular file's type for ReadFile's error.
func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.Type().String()
}

// structure checks the file's shape strictly and builds the tree that
// koanf merges the other layers onto:
// {entries: {<id>: {disabled: bool, config: map}}}.
func (l *loader) structure(raw map[string]any) (map[string]any, string) {
	var workspace string
	for key, v := range raw {
		switch key {
		case "workspace":
			s, ok := v.(string)
			if !ok {
				l.issue(l.source, "workspace", "expected a string, got "+describe(v))
			}
			workspace = s
		case "watch":
			b, ok := v.(bool)
			if !ok {
				l.issue(l.source, "watch", "expected a boolean, got "+describe(v))
			}
			l.watch = b
		case "plugins":
		default:
			l.issue(l.source, key, "unknown key")
		}
	}
	entries := map[string]any{}
	list, ok := raw["plugins"].([]any)
	if !ok && raw["plugins"] != nil {
		l.issue(l.source, "plugins", "expected a list, got "+describe(raw["plugins"]))
	}
	seen := map[string]string{}
	for i, item := range list {
		path := fmt.Sprintf("plugins[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			l.issue(l.source, path, "expected a mapping, got "+describe(item))
			continue
		}
		e := &entryInfo{index: i}
		disabled, cfg := false, map[string]any{}
		for key, v := range m {
			switch key {
			case "id", "name":
			case "disabled":
				b, ok := v.(bool)
				if !ok {
					l.issue(l.source, path+".disabled", "expected a boolean, got "+describe(v))
				}
				disabled = b
			case "config":
				if v == nil {
					continue
				}
				c, ok := v.(map[string]any)
				if !ok {
					l.issue(l.source, path+".config", "expected a mapping, got "+describe(v))
					continue
				}
				cfg = c
			default:
				l.issue(l.source, path+"."+key, "unknown key")
			}
		}
		name, ok := m["name"].(string)
		if !ok {
			if m["name"] == nil {
				l.issue(l.source, path+".name", "missing plugin name")
			} else {
				l.issue(l.source, path+".name", "expected a string, got "+describe(m["name"]))
			}
			continue
		}
		p, found := l.opts.Lookup(name)
		if !found {
			problem := fmt.Sprintf("unknown plugin %q", name)
			if l.opts.Known != nil {
				problem += " (registered: " + strings.Join(l.opts.Known(), ", ") + ")"
			}
			l.issue(l.source, path+".name", problem)
			continue
		}
		e.name, e.plugin, e.id = name, p, name
		if v, present := m["id"]; present {
			id, ok := v.(string)
			if !ok {
				l.issue(l.source, path+".id", "expected a string, got "+describe(v))
				continue
			}
			e.id = id
		}
		if !validID(e.id) {
			l.issue(l.source, path+".id", fmt.Sprintf("id %q may contain only letters, digits, '-' and '_'", e.id))
			continue
		}
		if prev, dup := seen[strings.ToLower(e.id)]; dup {
			l.issue(l.source, path+".id", fmt.Sprintf("duplicate id %q (also at %s)", e.id, prev))
			continue
		}
		seen[strings.ToLower(e.id)] = path + ".id"
		e.keys = configKeys(p.ConfigType())
		e.fileKeys = len(cfg) > 0
		for _, key := range secretKeys(p.ConfigType()) {
			if _, set := cfg[key]; set {
				l.issue(l.source, path+".config."+key, fmt.Sprintf("%s is a secret, never read from a deployment file (the model may read the file): pass it in %s or keep it in a file the deployment names",
					key, strings.ToUpper("DSH_"+e.id+"_"+key)))
			}
		}
		l.entries = append(l.entries, e)
		l.byID[e.id] = e
		entries[e.id] = map[string]any{"disabled": disabled, "config": cfg}
	}
	return map[string]any{"entries": entries}, workspace
}

// configKeys lists the top-level keys (json tag names) of a config type.
func configKeys(t reflect.Type) []string {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		if name := tagName(f); name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// secretKeys lists the top-level keys of a config type tagged
// `dsh:"secret"`: values a deployment file may not hold, since the model
// may read it (conversations.md §4.2); the environment and flags may.
func secretKeys(t reflect.Type) []string {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for f := range t.Fields() {
		if f.IsExported() && f.Tag.Get("dsh") == "secret" {
			keys = append(keys, tagName(f))
		}
	}
	return keys
}

// keyFor finds the entry key matching name: exactly, else ignoring case
// and underscores (so DSH_TOOLFS_READ_LIMIT and readlimit both find
// readLimit). "disabled" is the entry's own flag.
func (e *entryInfo) keyFor(name string) (string, bool) {
	if strings.EqualFold(name, "disabled") {
		return "disabled", true
	}
	fold := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	for _, k := range e.keys {
		if k == name {
			return k, true
		}
	}
	for _, k := range e.keys {
		if fold(k) == fold(name) {
			return k, true
		}
	}
	return "", false
}

// validKeys is the hint appended to unknown-key problems:
// ` (keys: a, b)`, or ` (this plugin has no config keys)`.
func (e *entryInfo) validKeys() string {
	if len(e.keys) == 0 {
		return " (this plugin has no config keys)"
	}
	return " (keys: " + strings.Join(e.keys, ", ") + ")"
}

// path returns the koanf path of key in entry e.
func (e *entryInfo) path(key string) string {
	if key == "disabled" {
		return "entries." + e.id + ".disabled"
	}
	return "entries." + e.id + ".config." + key
}
