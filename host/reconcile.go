package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// The reconciler: every state transition is decided under h.mu and every
// call into plugin code (apply, disposers) happens after it is released
// (host §3.5, §3.6). Transitions run on the goroutine whose operation caused
// them (a mount, a dispose, a service appearing or going away); the state
// checks under h.mu make each instance's load claimed by exactly one
// goroutine, and a per-instance generation counter makes a load that finished
// for a stale config or dependency set unload and load again.

// setStateLocked records a transition and wakes Wait callers. h.mu is held.
func (h *Host) setStateLocked(inst *Instance, st State) {
	old := inst.state
	if old == st {
		return
	}
	inst.state = st
	close(inst.changed)
	inst.changed = make(chan struct{})
	if st != StatePending {
		inst.missing = nil
	}
	h.statusQ = append(h.statusQ, statusChange{inst, old, st})
}

// fail puts inst in FAILED with err (nothing to roll back).
func (h *Host) fail(inst *Instance, err error) {
	h.mu.Lock()
	inst.err = err
	h.setStateLocked(inst, StateFailed)
	h.mu.Unlock()
	h.flushStatus()
	inst.parent.Logger().Error("plugin failed", "instance", inst.id, "err", err)
}

// missingLocked lists inst's injected services that are absent or whose
// provider is not ACTIVE.
func (h *Host) missingLocked(inst *Instance) []string {
	var missing []string
	for _, k := range inst.plugin.inject {
		if sv := h.services[k.Name()]; sv == nil || sv.provider.state != StateActive {
			missing = append(missing, k.Name())
		}
	}
	return missing
}

// pendingMissingLocked returns what a PENDING inst waits for now, or nil
// in any other state. It is computed, not cached: a dependent sent back to
// PENDING, or one whose services appear one by one, must not report a stale
// list.
func (h *Host) pendingMissingLocked(inst *Instance) []string {
	if inst.state != StatePending {
		return nil
	}
	return h.missingLocked(inst)
}

// start loads inst if it is PENDING and its services are ready, looping
// while the load turns out stale.
func (h *Host) start(ctx context.Context, inst *Instance) {
	for {
		h.mu.Lock()
		if inst.state != StatePending || inst.disposeReq {
			h.mu.Unlock()
			return
		}
		if missing := h.missingLocked(inst); len(missing) > 0 {
			inst.missing = missing
			close(inst.changed)
			inst.changed = make(chan struct{})
			h.mu.Unlock()
			return
		}
		gen, cfg := inst.gen, inst.cfg
		scope := newScope(h, inst)
		inst.scope = scope
		inst.err = nil
		h.setStateLocked(inst, StateLoading)
		h.mu.Unlock()
		h.flushStatus()

		err := h.callApply(ctx, inst, scope, cfg)

		h.mu.Lock()
		stale, disposeReq := inst.gen != gen, inst.disposeReq
		if err == nil && !stale && !disposeReq {
			h.setStateLocked(inst, StateActive)
			h.mu.Unlock()
			h.flushStatus()
			h.wake(ctx) // its services are visible now
			return
		}
		if err != nil && !stale && !disposeReq {
			h.mu.Unlock()
			rollback := scope.close(context.WithoutCancel(ctx))
			h.mu.Lock()
			inst.scope = nil
			// A Dispose or Update that came in during the rollback saw
			// LOADING and left the outcome to this loader.
			if inst.disposeReq {
				h.finishDisposeLocked(inst)
				h.mu.Unlock()
				h.flushStatus()
				return
			}
			if inst.gen != gen {
				h.setStateLocked(inst, StatePending)
				h.mu.Unlock()
				h.flushStatus()
				continue
			}
			inst.err = err
			if rollback != nil {
				inst.err = errors.Join(err, fmt.Errorf("rollback: %w", rollback))
			}
			h.setStateLocked(inst, StateFailed)
			h.mu.Unlock()
			h.flushStatus()
			scope.Logger().Error("plugin failed", "err", err)
			return
		}
		// Stale (an update or a dependency change came in during apply) or
		// disposed meanwhile: undo this activation. A failed apply's error
		// is kept for the disposer waiting in awaitDisposed.
		if err != nil && disposeReq {
			inst.err = err
		}
		h.setStateLocked(inst, StateUnloading)
		h.mu.Unlock()
		h.flushStatus()
		_ = scope.close(context.WithoutCancel(ctx))
		h.mu.Lock()
		inst.scope = nil
		if inst.disposeReq {
			h.finishDisposeLocked(inst)
			h.mu.Unlock()
			h.flushStatus()
			return
		}
		h.setStateLocked(inst, StatePending)
		h.mu.Unlock()
		h.flushStatus()
	}
}

// callApply runs the plugin's apply under recover with a load-bounded ctx.
func (h *Host) callApply(ctx context.Context, inst *Instance, scope *Scope, cfg any) error {
	actx := context.WithoutCancel(ctx)
	if h.loadTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(actx, h.loadTimeout)
		defer cancel()
	}
	site := fmt.Sprintf("plugin %q", inst.plugin.name)
	err := Protect(site, func() error { return inst.plugin.apply(actx, scope, cfg) })
	var pe *PanicError
	if err != nil && !errors.As(err, &pe) {
		err = fmt.Errorf("%s: %w", site, err)
	}
	return err
}

// wake starts every PENDING instance whose services are ready, in creation
// order. FAILED instances are not re-run (Cordis #95).
func (h *Host) wake(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	h.mu.RLock()
	var ready []*Instance
	for _, x := range h.instances {
		if x.state == StatePending && !x.disposeReq && len(h.missingLocked(x)) == 0 {
			ready = append(ready, x)
		}
	}
	h.mu.RUnlock()
	for _, x := range ready {
		h.start(ctx, x)
	}
}

func hasKey(keys []ServiceKey, name string) bool {
	return slices.ContainsFunc(keys, func(k ServiceKey) bool { return k.Name() == name })
}

// dependentsLocked lists the ACTIVE or LOADING instances that inject one of
// names, newest first.
func (h *Host) dependentsLocked(names []string) []*Instance {
	var deps []*Instance
	for i := len(h.instances) - 1; i >= 0; i-- {
		x := h.instances[i]
		if x.state != StateActive && x.state != StateLoading {
			continue
		}
		for _, n := range names {
			if hasKey(x.plugin.inject, n) {
				deps = append(deps, x)
				break
			}
		}
	}
	return deps
}

// unloadDependents unloads, back to PENDING, every instance that depends on
// a service provided by inst (host §1.2 "Dispose cascade").
func (h *Host) unloadDependents(ctx context.Context, inst *Instance) error {
	h.mu.RLock()
	var names []string
	for name, sv := range h.services {
		if sv.provider == inst {
			names = append(names, name)
		}
	}
	deps := h.dependentsLocked(names)
	h.mu.RUnlock()
	var errs []error
	for _, d := range deps {
		if d != inst {
			errs = append(errs, h.unloadToPending(ctx, d))
		}
	}
	return joinErrors(errs)
}

// unloadToPending ends inst's current activation and returns it to PENDING,
// its dependents first. A LOADING instance is marked stale instead; its
// loader unloads it when apply returns.
func (h *Host) unloadToPending(ctx context.Context, inst *Instance) error {
	h.mu.Lock()
	switch inst.state {
	case StateLoading:
		inst.gen++
		h.mu.Unlock()
		return nil
	case StateActive:
	default:
		h.mu.Unlock()
		return nil
	}
	h.setStateLocked(inst, StateUnloading)
	scope := inst.scope
	h.mu.Unlock()
	h.flushStatus()

	errs := []error{h.unloadDependents(ctx, inst)}
	if scope != nil {
		errs = append(errs, scope.close(ctx))
	}

	h.mu.Lock()
	inst.scope = nil
	inst.gen++
	if inst.disposeReq {
		h.finishDisposeLocked(inst)
	} else {
		h.setStateLocked(inst, StatePending)
	}
	h.mu.Unlock()
	h.flushStatus()
	return joinErrors(errs)
}

// dispose ends inst for good (see Instance.Dispose).
func (h *Host) dispose(ctx context.Context, inst *Instance) error {
	h.mu.Lock()
	switch inst.state {
	case StateDisposed:
		h.mu.Unlock()
		return nil
	case StateLoading, StateUnloading:
		inst.disposeReq = true
		h.mu.Unlock()
		return nil
	}
	wasActive := inst.state == StateActive
	inst.disposeReq = true
	h.setStateLocked(inst, StateUnloading)
	scope := inst.scope
	h.mu.Unlock()
	h.flushStatus()

	var errs []error
	if wasActive {
		errs = append(errs, h.unloadDependents(ctx, inst))
	}
	if scope != nil {
		errs = append(errs, scope.close(ctx))
	}
	h.mu.Lock()
	inst.scope = nil
	h.finishDisposeLocked(inst)
	h.mu.Unlock()
	h.flushStatus()
	return joinErrors(errs)
}

// awaitDisposed waits until inst is DISPOSED, at most the dispose timeout
// (or ctx), and returns the error of a load that failed meanwhile.
func (h *Host) awaitDisposed(ctx context.Context, inst *Instance) error {
	var timeout <-chan time.Time
	if h.disposeTimeout > 0 {
		t := time.NewTimer(h.disposeTimeout)
		defer t.Stop()
		timeout = t.C
	}
	for {
		h.mu.RLock()
		st, err, ch := inst.state, inst.err, inst.changed
		h.mu.RUnlock()
		if st == StateDisposed {
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout:
			return fmt.Errorf("instance %q: still %s after the dispose timeout (%s)", inst.id, st, h.disposeTimeout)
		}
	}
}

// finishDisposeLocked moves inst to DISPOSED and forgets it.
func (h *Host) finishDisposeLocked(inst *Instance) {
	h.setStateLocked(inst, StateDisposed)
	inst.missing = nil
	if i := slices.Index(h.instances, inst); i >= 0 {
		h.instances = slices.Delete(h.instances, i, i+1)
	}
}

// restart applies a new config (nil: keep the current one) and reloads.
func (h *Host) restart(ctx context.Context, inst *Instance, cfg any) error {
	h.mu.Lock()
	if inst.disposeReq || inst.state == StateDisposed {
		h.mu.Unlock()
		return ErrInactive
	}
	if cfg != nil {
		inst.cfg = cfg
	}
	inst.gen++
	st := inst.state
	if st == StateFailed {
		inst.err = nil
		h.setStateLocked(inst, StatePending)
	}
	h.mu.Unlock()
	h.flushStatus()
	var err error
	switch st {
	case StateLoading, StateUnloading:
		return nil // the running load or unload picks up the new generation
	case StateActive:
		err = h.unloadToPending(ctx, inst)
	}
	h.start(ctx, inst)
	return err
}
