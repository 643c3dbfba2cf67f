package host

import (
	"fmt"
	"sort"
	"sync"
)

var registry struct {
	mu      sync.RWMutex
	plugins map[string]*Plugin
}

// Register adds p to the compile-time plugin list under its name, Caddy
// style: plugin packages call it from init, and deployment configs name
// plugins by it. It panics on an empty or duplicate name, a programming error
// found at start-up. Tests mount plugins on a fresh host and need not register
// them.
func Register(p *Plugin) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if p == nil || p.name == "" {
		panic("host: Register of a plugin without a name")
	}
	if registry.plugins == nil {
		registry.plugins = map[string]*Plugin{}
	}
	if _, dup := registry.plugins[p.name]; dup {
		panic(fmt.Sprintf("host: plugin %q registered twice", p.name))
	}
	registry.plugins[p.name] = p
}

// Lookup returns the registered plugin called name.
func Lookup(name string) (*Plugin, bool) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	p, ok := registry.plugins[name]
	return p, ok
}

// Registered returns every registered plugin, sorted by name.
func Registered() []*Plugin {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	out := make([]*Plugin, 0, len(registry.plugins))
	for _, p := range registry.plugins {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
