package config

import (
	"fmt"
	"strings"

	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/v2"
)

// The env layer: `DSH_<ID>_<KEY>` variables over the file, and
// DSH_WORKSPACE.

// envLayer is the koanf env provider configured for this load.
func (l *loader) envLayer(workspace *string) *env.Env {
	return env.Provider(".", env.Opt{
		EnvironFunc: l.dshVariables,
		TransformFunc: func(name, value string) (string, any) {
			source := "env " + name
			rest := name[4:]
			if strings.EqualFold(rest, "WORKSPACE") {
				*workspace = value
				return "", nil
			}
			e, key := l.matchEnv(rest)
			if strings.EqualFold(name, LogLevelVariable) || strings.EqualFold(name, StateDirVariable) {
				return "", nil // the CLI's; the state directory's
			}
			if strings.EqualFold(name, MCPTokenVariable) && (e == nil || key == "") {
				return "", nil // no mcp entry here: serve reads it itself
			}
			if e == nil {
				l.issue(source, "", "no plugin entry matches this variable (expected DSH_WORKSPACE, DSH_LOG_LEVEL, DSH_STATE_DIR, DSH_MCP_TOKEN or DSH_<ID>_<KEY>)")
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

// dshVariables returns the `DSH_` entries (any case) of the environment,
// as KEY=value.
func (l *loader) dshVariables() []string {
	var out []string
	for _, kv := range l.opts.Environ {
		if len(kv) > 4 && strings.EqualFold(kv[:4], "DSH_") {
			out = append(out, kv)
		}
	}
	return out
}

func (l *loader) loadEnv(k *koanf.Koanf) string {
	var workspace string
	if len(l.dshVariables()) == 0 {
		return "" // no layer: skip koanf's merge of nothing
	}
	if err := k.Load(l.envLayer(&workspace), nil); err != nil {
		l.issue("environment", "", err.Error())
	}
	return workspace
}
