package host

import (
	"fmt"
	"slices"
	"strings"
)

// InstanceInfo describes one live instance in a [Host.Snapshot].
type InstanceInfo struct {
	// ID is the instance ID; Parent is its parent's ID ("root" at top level).
	ID, Parent string
	// Plugin is the plugin's name.
	Plugin string
	// State is the lifecycle state.
	State State
	// Err is the error that made it FAILED, or nil.
	Err error
	// Missing lists the injected services a PENDING instance waits for.
	Missing []string
	// Injects and Optional are the declared required and optional services.
	Injects, Optional []string
	// Provides is the union of the declared services, in declaration order,
	// and those the instance provides right now, sorted by name.
	Provides []string
}

// Snapshot describes every live instance except the root, in mount order,
// for diagnostics (host §3.6).
func (h *Host) Snapshot() []InstanceInfo {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []InstanceInfo
	for _, x := range h.instances {
		if x == h.root {
			continue
		}
		provides := x.plugin.ProvidedServices()
		declared := len(provides)
		for name, sv := range h.services {
			if sv.provider == x && !slices.Contains(provides, name) {
				provides = append(provides, name)
			}
		}
		slices.Sort(provides[declared:]) // map order is random
		parent := ""
		if x.parent != nil {
			parent = x.parent.inst.id
		}
		missing := h.pendingMissingLocked(x)
		out = append(out, InstanceInfo{
			ID: x.id, Parent: parent, Plugin: x.plugin.name, State: x.state, Err: x.err,
			Missing: missing, Injects: keyNames(x.plugin.inject),
			Optional: keyNames(x.plugin.optional), Provides: provides,
		})
	}
	return out
}

// Instance returns the live instance with the given ID, or nil.
func (h *Host) Instance(id string) *Instance {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if x := h.findLocked(id); x != nil && x != h.root {
		return x
	}
	return nil
}

// BootError is the result of a failed boot audit (host §3.6): each FAILED
// instance with its error and each instance that is not ACTIVE with what it
// waits for. dshhost exits 2 on it.
type BootError struct {
	// Instances are the instances that are not ACTIVE.
	Instances []InstanceInfo
}

// Error lists each instance on its own line:
// `plugin "toolfs" (id "toolfs") is PENDING: waiting for services "fs"`.
func (e *BootError) Error() string {
	lines := []string{"boot failed: not every plugin is active"}
	for _, x := range e.Instances {
		line := fmt.Sprintf("plugin %q (id %q) is %s", x.Plugin, x.ID, x.State)
		switch {
		case x.Err != nil:
			line += ": " + x.Err.Error()
		case len(x.Missing) > 0:
			q := make([]string, len(x.Missing))
			for i, m := range x.Missing {
				q[i] = fmt.Sprintf("%q", m)
			}
			line += ": waiting for services " + strings.Join(q, ", ")
		}
		lines = append(lines, "  "+line)
	}
	return strings.Join(lines, "\n")
}

// Audit checks that every live instance is ACTIVE, as boot requires (host
// §3.6, Cordis #154): it returns nil, or a *BootError naming each FAILED
// instance with its error and each PENDING one with its missing services.
func (h *Host) Audit() error {
	var bad []InstanceInfo
	for _, x := range h.Snapshot() {
		if x.State != StateActive {
			bad = append(bad, x)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &BootError{Instances: bad}
}
