package config

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/maps"
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

// validID reports whether id is a valid entry id, [A-Za-z0-9_-]+: an id is
// addressed by env variables and by `--set ID.key`.
//
// It is a plain loop rather than a regexp compiled at package init: every
// command loads a deployment, and start-up does no work it does not need.
func validID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// entryInfo is what the file stage knows of one entry.
type entryInfo struct {
	index  int
	id     string
	name   string
	plugin *host.Plugin
	keys   []string // the plugin's top-level config keys (json tags)
	// fileKeys reports whether the file sets a config key of the entry (the
	// env and flag layers record theirs in loader.origin).
	fileKeys bool
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
	watch   bool              // the file's `watch`
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
	if err := k.Load(treeLayer(base), nil); err != nil {
		return nil, &Error{Issues: []Issue{{Source: l.source, Problem: err.Error()}}}
	}
	envWorkspace := l.loadEnv(k)
	l.loadFlags(k)
	dep := &Deployment{Source: l.source, Watch: l.watch}
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

// decodeEntry reads an entry's merged values back and decodes its config
// with the one strict decoder, through koanf's unmarshal (host §3.7).
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
	// With no key set in any layer, decoding would leave the defaults as they
	// are and no path is relative: skipping both spares `dshhost call` the
	// decoder's reflection (and koanf's copies) over every entry of the
	// default deployment. CheckConfig still validates the defaults.
	keys := l.hasConfigKeys(e)
	if keys {
		l.absolutePaths(k, e, prefix+".config")
	}
	cfg, err := decodeWith(e.plugin, func(dc *mapstructure.DecoderConfig) error {
		if !keys {
			return nil
		}
		return k.UnmarshalWithConf(prefix+".config", dc.Result, koanf.UnmarshalConf{Tag: "json", DecoderConfig: dc})
	})
	if err != nil {
		l.configIssues(e, err)
		return out
	}
	out.Declared = cfg
	out.Config = withWorkspace(cfg, workspace, l.deploymentDir)
	return out
}

// hasConfigKeys reports whether any layer sets a config key of e: the
// file (entryInfo.fileKeys), or an env variable or --set flag (each recorded
// in l.origin as "<id>.<key>"; "<id>.disabled" is not a config key).
func (l *loader) hasConfigKeys(e *entryInfo) bool {
	if e.fileKeys {
		return true
	}
	for k := range l.origin {
		if id, key, _ := strings.Cut(k, "."); id == e.id && key != "disabled" {
			return true
		}
	}
	return false
}

// configIssues reports a decoding or validation error of e's config, each
// issue under the source of the layer that set its top-level key.
func (l *loader) configIssues(e *entryInfo, err error) {
	var ce *host.ConfigError
	if !errors.As(err, &ce) {
		l.issue(l.source, fmt.Sprintf("plugins[%d].config", e.index), err.Error())
		return
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

// treeLayer is a koanf.Provider of a tree that Load built and hands over:
// it reads as confmap.Provider(tree, ".") does (non-string keys spelled as
// strings, dotted keys unflattened) without confmap's reflective deep copy,
// which guards a caller's map that Load never touches again and was most of
// Load's own work.
type treeLayer map[string]any

// ReadBytes is not supported: the layer is a tree, not a file.
func (t treeLayer) ReadBytes() ([]byte, error) {
	return nil, errors.New("a tree layer has no bytes")
}

// Read returns the tree, keys as strings, dotted keys unflattened.
func (t treeLayer) Read() (map[string]any, error) {
	m := map[string]any(t)
	maps.IntfaceKeysToStrings(m)
	return maps.Unflatten(m, "."), nil
}
