package config

import (
	"fmt"
	"strings"

	"github.com/knadh/koanf/v2"
)

// The flags layer: --set ID.key=value and --disable ID, over the env layer.

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
	if len(layer) == 0 {
		return // merging nothing: skip koanf's copy of the empty layer
	}
	if err := k.Load(treeLayer(layer), nil); err != nil {
		l.issue("flags", "", err.Error())
	}
}
