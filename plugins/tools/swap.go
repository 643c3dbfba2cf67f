package tools

import (
	"context"
	"slices"
	"time"
)

// SwapWait bounds how long a call of a tool that is missing while a swap is
// held ([Registry.HoldSwap]) waits for the tool to come back before it is
// answered `unknown tool`.
const SwapWait = 30 * time.Second

// moved returns the channel closed at the registry's next movement: a tool
// registered, a call ended, a swap released. Waiters take it, check their
// condition, then wait on it.
func (r *Registry) moved() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.move == nil {
		r.move = make(chan struct{})
	}
	return r.move
}

// signal closes the current movement channel (see moved).
func (r *Registry) signal() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.move != nil {
		close(r.move)
		r.move = nil
	}
}

// Running returns the number of calls in flight of the tools registered on
// behalf of the plugin instances owners (by instance id).
func (r *Registry) Running(owners ...string) int {
	r.mu.RLock()
	tools := slices.Clone(r.tools)
	r.mu.RUnlock()
	n := 0
	for _, e := range tools {
		if slices.Contains(owners, e.owner) {
			n += e.calls.running()
		}
	}
	return n
}

// AwaitIdle waits until no call of a tool of owners (instance ids) is in
// flight, or ctx ends (its error is returned). Calls that start meanwhile
// are waited for too.
func (r *Registry) AwaitIdle(ctx context.Context, owners ...string) error {
	for {
		ch := r.moved()
		if r.Running(owners...) == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// HoldSwap says that the tools of the plugin instances owners (by id) are
// being swapped (a config reload replacing those instances): until release
// runs, their calls are not admitted and wait, and so does a call of a tool
// that is not registered or whose plugin is unloading, until a tool of that
// name admits it (the new instance registered it, or release reopened the
// old one), for at most SwapWait; then it is answered `unknown tool`. The
// calls already running go on ([Registry.AwaitIdle] waits for them). Holds
// nest; release is idempotent.
func (r *Registry) HoldSwap(owners ...string) (release func()) {
	r.mu.Lock()
	r.swaps++
	var paused []*entry
	for _, e := range r.tools {
		if slices.Contains(owners, e.owner) {
			e.paused++
			paused = append(paused, e)
		}
	}
	r.mu.Unlock()
	done := false
	return func() {
		r.mu.Lock()
		if done {
			r.mu.Unlock()
			return
		}
		done = true
		r.swaps--
		for _, e := range paused {
			e.paused--
		}
		r.mu.Unlock()
		r.signal()
	}
}

// awaitSwap returns the entry of the tool called name that admits ctx's
// call, waiting while a swap is held (HoldSwap) for at most SwapWait or
// until ctx ends; nil when there is none.
func (r *Registry) awaitSwap(ctx context.Context, name string) (e *entry, callCtx context.Context, leave func()) {
	var deadline <-chan time.Time
	for {
		ch := r.moved()
		r.mu.RLock()
		swapping := r.swaps > 0
		r.mu.RUnlock()
		if e, paused := r.findPaused(name); e != nil && !paused {
			if callCtx, leave, ok := e.calls.enter(ctx); ok {
				return e, callCtx, leave
			}
		}
		if !swapping {
			return nil, nil, nil
		}
		if deadline == nil {
			t := time.NewTimer(SwapWait)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-ch:
		case <-deadline:
			return nil, nil, nil
		case <-ctx.Done():
			return nil, nil, nil
		}
	}
}

// findPaused is find, with whether the entry is paused by a HoldSwap.
func (r *Registry) findPaused(name string) (*entry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, e := range r.tools {
		if e.tool.Name == name {
			return e, e.paused > 0
		}
	}
	return nil, false
}
