package host

import (
	"context"
	"errors"
	"fmt"
)

// Instance is one mount of a plugin: a fiber in Cordis v4 (host §1.1). It
// moves through the states of [State], activation by activation; each
// activation has its own [Scope]. Every instance ends DISPOSED.
type Instance struct {
	h      *Host
	plugin *Plugin
	id     string
	parent *Scope
	link   *effect // the "plugin(<name>)" effect on parent

	// guarded by h.mu
	state      State
	err        error
	missing    []string
	cfg        any
	gen        uint64
	scope      *Scope
	disposeReq bool
	changed    chan struct{}
}

// ID returns the instance's ID: a deployment entry's id, or the plugin name
// (`<name>#<n>` for later instances of the same plugin).
func (i *Instance) ID() string { return i.id }

// Plugin returns the plugin this is an instance of.
func (i *Instance) Plugin() *Plugin { return i.plugin }

// State returns the current state.
func (i *Instance) State() State {
	i.h.mu.RLock()
	defer i.h.mu.RUnlock()
	return i.state
}

// Err returns the error that put the instance in FAILED (invalid config, an
// apply error naming the plugin, or a recovered panic), or nil.
func (i *Instance) Err() error {
	i.h.mu.RLock()
	defer i.h.mu.RUnlock()
	return i.err
}

// Missing returns the injected services a PENDING instance waits for.
func (i *Instance) Missing() []string {
	i.h.mu.RLock()
	defer i.h.mu.RUnlock()
	return i.h.pendingMissingLocked(i)
}

// Config returns the validated config of the current (or next) activation,
// a value of the plugin's config type; nil when the config was invalid.
func (i *Instance) Config() any {
	i.h.mu.RLock()
	defer i.h.mu.RUnlock()
	return i.cfg
}

// Scope returns the scope of the current activation, or nil while the
// instance is PENDING, FAILED or DISPOSED.
func (i *Instance) Scope() *Scope {
	i.h.mu.RLock()
	defer i.h.mu.RUnlock()
	return i.scope
}

// Wait blocks until the instance is ACTIVE (nil), FAILED (its error) or
// DISPOSED (ErrInactive), like awaiting a fiber. When ctx ends first it
// returns ctx.Err(), joined with a *MissingServicesError if the instance is
// still waiting for services.
func (i *Instance) Wait(ctx context.Context) error {
	for {
		i.h.mu.RLock()
		st, err, ch, missing := i.state, i.err, i.changed, i.h.pendingMissingLocked(i)
		i.h.mu.RUnlock()
		switch st {
		case StateActive:
			return nil
		case StateFailed:
			return err
		case StateDisposed:
			return ErrInactive
		}
		select {
		case <-ch:
		case <-ctx.Done():
			if st == StatePending && len(missing) > 0 {
				return errors.Join(ctx.Err(), &MissingServicesError{Instance: i.id, Keys: missing})
			}
			return ctx.Err()
		}
	}
}

// Dispose unloads the instance for good: its dependents are unloaded first,
// then its effects run newest first, and it ends DISPOSED (host §1.2, §1.3).
// It returns the joined disposer failures (each is also logged). Disposing a
// DISPOSED instance is a no-op. An instance disposed while its apply is
// running is disposed as soon as apply returns.
func (i *Instance) Dispose(ctx context.Context) error {
	if i.link != nil {
		i.parent.removeEffect(i.link)
		i.link.once.Do(func() { i.h.effectCount.Add(-1) })
	}
	return i.h.dispose(ctx, i)
}

// Update validates cfg and applies it (host §3.6): an ACTIVE instance whose
// activation registered an update hook ([OnUpdate]) takes it in place when
// the hook accepts; otherwise the instance restarts with it. An invalid cfg
// returns its *ConfigError and changes nothing. An update during
// LOADING is applied as soon as that load finishes (Cordis #34); a FAILED
// instance is re-run. Update on a disposed instance returns ErrInactive.
func (i *Instance) Update(ctx context.Context, cfg any) error {
	decoded, err := i.plugin.CheckConfig(cfg)
	if err != nil {
		return err
	}
	if i.h.updateInPlace(ctx, i, decoded) {
		return nil
	}
	return i.h.restart(ctx, i, decoded)
}

// Restart unloads and reloads the instance with its current config; a
// FAILED instance is re-run. Restart on a disposed instance returns
// ErrInactive.
func (i *Instance) Restart(ctx context.Context) error {
	return i.h.restart(ctx, i, nil)
}

func (h *Host) newInstance(parent *Scope, p *Plugin, cfg any, id string) (*Instance, error) {
	parent.mu.Lock()
	defer parent.mu.Unlock()
	if parent.closed {
		return nil, ErrInactive
	}
	h.mu.Lock()
	if id == "" {
		id = h.freeIDLocked(p.name)
	} else if h.findLocked(id) != nil {
		h.mu.Unlock()
		return nil, fmt.Errorf("instance id %q is already in use", id)
	}
	inst := &Instance{h: h, plugin: p, id: id, parent: parent, cfg: cfg, changed: make(chan struct{})}
	h.instances = append(h.instances, inst)
	h.mu.Unlock()
	inst.link = parent.addEffectLocked(fmt.Sprintf("plugin(%q)", p.name), func(ctx context.Context) error {
		return h.dispose(ctx, inst)
	})
	inst.link.inline = true
	return inst, nil
}

func (h *Host) findLocked(id string) *Instance {
	for _, x := range h.instances {
		if x.id == id {
			return x
		}
	}
	return nil
}

func (h *Host) freeIDLocked(name string) string {
	if h.findLocked(name) == nil {
		return name
	}
	for n := 2; ; n++ {
		id := fmt.Sprintf("%s#%d", name, n)
		if h.findLocked(id) == nil {
			return id
		}
	}
}

// Dependents returns the ids of the instances that a restart or dispose of
// i unloads before it (host §1.2 "Dispose cascade"): those that inject a
// service i provides, then theirs, transitively, each once, nearest first.
func (i *Instance) Dependents() []string {
	h := i.h
	h.mu.RLock()
	defer h.mu.RUnlock()
	var ids []string
	seen := map[*Instance]bool{i: true}
	for queue := []*Instance{i}; len(queue) > 0; queue = queue[1:] {
		var names []string
		for name, sv := range h.services {
			if sv.provider == queue[0] {
				names = append(names, name)
			}
		}
		for _, d := range h.dependentsLocked(names) {
			if !seen[d] {
				seen[d] = true
				ids = append(ids, d.id)
				queue = append(queue, d)
			}
		}
	}
	return ids
}
