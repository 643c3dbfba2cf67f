package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/knadh/koanf/parsers/json"
	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"

	"github.com/dsh-go/dsh/host"
)

// Options are the inputs of Load besides the file's content.
type Options struct {
	// File is the deployment file (.yaml, .yml, .json or .toml); empty
	// means the embedded default deployment.
	File string
	// Workspace is the --workspace flag; empty means unset. A relative path
	// is taken against the process working directory.
	Workspace string
	// Disable lists entry ids to disable (--disable ID).
	Disable []string
	// Set lists overrides `ID.key=value` (--set); the value is read as a
	// YAML scalar, so `7` is an integer and `true` a boolean. `ID.disabled`
	// sets the entry's disabled flag.
	Set []string
	// Environ is the environment to read `DSH_` variables from; nil means
	// os.Environ().
	Environ []string
	// Dir is the working directory: the default workspace and the base of a
	// relative Workspace; empty means the process working directory.
	Dir string
	// Lookup finds plugins by name; nil means host.Lookup (the
	// compile-time registry).
	Lookup func(name string) (*host.Plugin, bool)
	// Known lists the plugin names an unknown-plugin error suggests; nil
	// means the compile-time registry's when Lookup is nil, else none.
	Known func() []string
}

// idPattern is what an entry id may contain: it is addressed by env
// variables and by `--set ID.key`.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// entryInfo is what the file stage knows of one entry.
type entryInfo struct {
	index  int
	id     string
	name   string
	plugin *host.Plugin
	keys   []string // the plugin's top-level config keys (json tags)
}

// loader carries one Load: the entries, the issues found so far and where
// each override came from.
type loader struct {
	opts    Options
	source  string
	entries []*entryInfo
	byID    map[string]*entryInfo
	issues  []Issue
	origin  map[string]string // "<id>.<key>" → source of its latest value
}

func (l *loader) issue(source, path, problem string) {
	l.issues = append(l.issues, Issue{Source: source, Path: path, Problem: problem})
}

// Load reads, merges and validates a deployment (see the package doc). It
// returns a *Error listing every issue, or the deployment with every entry's
// config decoded and validated.
func Load(opts Options) (*Deployment, error) {
	if opts.Lookup == nil {
		opts.Lookup = host.Lookup
		if opts.Known == nil {
			opts.Known = func() []string {
				var names []string
				for _, p := range host.Registered() {
					names = append(names, p.Name())
				}
				return names
			}
		}
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	l := &loader{opts: opts, byID: map[string]*entryInfo{}, origin: map[string]string{}}
	raw, err := l.read()
	if err != nil {
		return nil, &Error{Issues: []Issue{{Source: l.source, Problem: err.Error()}}}
	}
	base, fileWorkspace := l.structure(raw)
	if len(l.issues) > 0 {
		return nil, &Error{Issues: l.issues}
	}
	k := koanf.New(".")
	if err := k.Load(confmap.Provider(base, "."), nil); err != nil {
		return nil, &Error{Issues: []Issue{{Source: l.source, Problem: err.Error()}}}
	}
	envWorkspace := l.loadEnv(k)
	l.loadFlags(k)
	dep := &Deployment{Source: l.source}
	dep.Workspace, dep.WorkspaceFrom = l.workspace(fileWorkspace, envWorkspace)
	if fi, err := os.Stat(dep.Workspace); err != nil || !fi.IsDir() {
		l.issue(map[string]string{"flag": "flag --workspace", "env": "env DSH_WORKSPACE", "file": l.source, "default": "working directory"}[dep.WorkspaceFrom],
			"workspace", dep.Workspace+" is not an existing directory")
	}
	for _, e := range l.entries {
		dep.Entries = append(dep.Entries, l.decodeEntry(k, e, dep.Workspace))
	}
	if len(l.issues) > 0 {
		return nil, &Error{Issues: l.issues}
	}
	return dep, nil
}

// read loads the file (or the default) into a raw tree.
func (l *loader) read() (map[string]any, error) {
	k := koanf.New(".")
	if l.opts.File == "" {
		l.source = DefaultSource
		if err := k.Load(rawbytes.Provider(defaultDeployment), yaml.Parser()); err != nil {
			return nil, err
		}
		return k.Raw(), nil
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
	if err := k.Load(file.Provider(l.opts.File), parser); err != nil {
		return nil, err
	}
	return k.Raw(), nil
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
		if !idPattern.MatchString(e.id) {
			l.issue(l.source, path+".id", fmt.Sprintf("id %q may contain only letters, digits, '-' and '_'", e.id))
			continue
		}
		if prev, dup := seen[strings.ToLower(e.id)]; dup {
			l.issue(l.source, path+".id", fmt.Sprintf("duplicate id %q (also at %s)", e.id, prev))
			continue
		}
		seen[strings.ToLower(e.id)] = path + ".id"
		e.keys = configKeys(p.ConfigType())
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
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys = append(keys, name)
	}
	return keys
}

// decodeEntry reads an entry's merged values back and decodes its config
// with the plugin's strict decoder.
func (l *loader) decodeEntry(k *koanf.Koanf, e *entryInfo, workspace string) Entry {
	out := Entry{ID: e.id, Name: e.name, Plugin: e.plugin}
	prefix := "entries." + e.id
	if v := k.Get(prefix + ".disabled"); v != nil {
		b, ok := v.(bool)
		if !ok {
			l.issue(l.originOf(e.id, "disabled"), fmt.Sprintf("plugins[%d].disabled", e.index), "expected a boolean, got "+describe(v))
		}
		out.Disabled = b
	}
	raw := k.Cut(prefix + ".config").Raw() // empty when the entry has no config
	if pk, ok := reflect.New(e.plugin.ConfigType()).Interface().(PathKeyer); ok {
		l.absolutePaths(e, raw, pk.PathKeys())
	}
	cfg, err := e.plugin.DecodeConfig(raw)
	if err != nil {
		var ce *host.ConfigError
		if !errors.As(err, &ce) {
			l.issue(l.source, fmt.Sprintf("plugins[%d].config", e.index), err.Error())
			return out
		}
		for _, is := range ce.Issues {
			path := fmt.Sprintf("plugins[%d].config", e.index)
			top := ""
			if is.Path != "" {
				path += "." + is.Path
				top, _, _ = strings.Cut(is.Path, ".")
				top, _, _ = strings.Cut(top, "[")
			}
			problem := is.Problem
			if problem == "unknown key" && !strings.Contains(is.Path, ".") {
				problem += e.validKeys()
			}
			l.issue(l.originOf(e.id, top), path, problem)
		}
		return out
	}
	out.Declared = cfg
	if workspace != "" {
		ptr := reflect.New(reflect.TypeOf(cfg))
		ptr.Elem().Set(reflect.ValueOf(cfg))
		if wu, ok := ptr.Interface().(WorkspaceUser); ok {
			wu.UseWorkspace(workspace)
			cfg = ptr.Elem().Interface()
		}
	}
	out.Config = cfg
	return out
}

// absolutePaths makes each relative string value of keys in raw absolute
// (see PathKeyer): against the file's directory when the value comes from
// the file, else against Dir.
func (l *loader) absolutePaths(e *entryInfo, raw map[string]any, keys []string) {
	for _, key := range keys {
		v, ok := raw[key].(string)
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
		raw[key] = filepath.Join(base, v)
	}
}

// originOf returns where the latest value of <id>.<key> came from.
func (l *loader) originOf(id, key string) string {
	if key != "" {
		if src, ok := l.origin[id+"."+key]; ok {
			return src
		}
	}
	return l.source
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

// envLayer is the koanf env provider configured for this load.
func (l *loader) envLayer(workspace *string) *env.Env {
	return env.Provider(".", env.Opt{
		EnvironFunc: func() []string {
			var out []string
			for _, kv := range l.opts.Environ {
				if len(kv) > 4 && strings.EqualFold(kv[:4], "DSH_") {
					out = append(out, kv)
				}
			}
			return out
		},
		TransformFunc: func(name, value string) (string, any) {
			source := "env " + name
			rest := name[4:]
			if strings.EqualFold(rest, "WORKSPACE") {
				*workspace = value
				return "", nil
			}
			e, key := l.matchEnv(rest)
			if strings.EqualFold(name, LogLevelVariable) {
				return "", nil // the CLI's
			}
			if e == nil {
				l.issue(source, "", "no plugin entry matches this variable (expected DSH_WORKSPACE, DSH_LOG_LEVEL or DSH_<ID>_<KEY>)")
				return "", nil
			}
			if key == "" {
				l.issue(source, fmt.Sprintf("plugins[%d]", e.index), fmt.Sprintf("no config key of %q matches %q%s", e.id, rest[len(e.id)+1:], e.validKeys()))
				return "", nil
			}
			l.origin[e.id+"."+key] = source
			return e.path(key), scalar(value)
		},
	})
}

// matchEnv splits `<ID>_<KEY>` (case-insensitive) into an entry and one of
// its keys, preferring the longest matching id.
func (l *loader) matchEnv(rest string) (*entryInfo, string) {
	var best *entryInfo
	for _, e := range l.entries {
		p := e.id + "_"
		if len(rest) > len(p) && strings.EqualFold(rest[:len(p)], p) && (best == nil || len(e.id) > len(best.id)) {
			best = e
		}
	}
	if best == nil {
		return nil, ""
	}
	key, _ := best.keyFor(rest[len(best.id)+1:])
	return best, key
}

func (l *loader) loadEnv(k *koanf.Koanf) string {
	var workspace string
	if err := k.Load(l.envLayer(&workspace), nil); err != nil {
		l.issue("environment", "", err.Error())
	}
	return workspace
}

// loadFlags merges --disable and --set.
func (l *loader) loadFlags(k *koanf.Koanf) {
	layer := map[string]any{}
	for _, set := range l.opts.Set {
		source := "flag --set " + set
		lhs, value, ok := strings.Cut(set, "=")
		id, key, ok2 := strings.Cut(lhs, ".")
		if !ok || !ok2 || key == "" {
			l.issue(source, "", "expected ID.key=value")
			continue
		}
		e := l.byID[id]
		if e == nil {
			l.issue(source, "", fmt.Sprintf("no plugin entry has id %q", id))
			continue
		}
		top, sub, nested := strings.Cut(key, ".")
		name, found := e.keyFor(top)
		if !found {
			l.issue(source, fmt.Sprintf("plugins[%d].config.%s", e.index, key), "unknown key"+e.validKeys())
			continue
		}
		path := e.path(name)
		if nested {
			path += "." + sub
		}
		l.origin[e.id+"."+name] = source
		layer[path] = scalar(value)
	}
	for _, id := range l.opts.Disable {
		e := l.byID[id]
		if e == nil {
			l.issue("flag --disable "+id, "", fmt.Sprintf("no plugin entry has id %q", id))
			continue
		}
		l.origin[e.id+".disabled"] = "flag --disable " + id
		layer[e.path("disabled")] = true
	}
	if err := k.Load(confmap.Provider(layer, "."), nil); err != nil {
		l.issue("flags", "", err.Error())
	}
}
