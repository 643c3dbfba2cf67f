package tools

import (
	"context"
	"fmt"
	"sync"
)

// inflight counts the calls of one registered tool that are running, so
// that removing the tool (its plugin unloading, swapped by a config reload,
// or shutting down) lets them finish first, within the disposer's timeout,
// and then cancels the ones still running. This is the call's lease on the
// services its plugin injected: the host unloads a service's dependents
// before it withdraws the service (host §1.2), so a provider is disposed only
// after the calls of the tools built on it have returned or been
// cancelled. Once drained it admits no new call: a call that found the tool
// just before its removal reports it unknown instead of running on a plugin
// that is going away.
type inflight struct {
	mu      sync.Mutex
	n       int
	closed  bool
	idle    chan struct{} // closed when draining and n is 0
	cancels map[*context.CancelFunc]struct{}
	// left, if set, runs after each call ended, with no lock held.
	left func()
}

// enter admits one call and returns the context its body runs under (ctx,
// cancelled if the drain times out) and the function that ends the call;
// ok is false once the tool is being removed.
func (f *inflight) enter(ctx context.Context) (callCtx context.Context, leave func(), ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, nil, false
	}
	f.n++
	callCtx, cancel := context.WithCancel(ctx)
	if f.cancels == nil {
		f.cancels = map[*context.CancelFunc]struct{}{}
	}
	f.cancels[&cancel] = struct{}{}
	return callCtx, func() { f.leave(&cancel) }, true
}

// leave ends one admitted call.
func (f *inflight) leave(cancel *context.CancelFunc) {
	(*cancel)()
	f.mu.Lock()
	delete(f.cancels, cancel)
	f.n--
	if f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
	f.mu.Unlock()
	if f.left != nil {
		f.left()
	}
}

// running returns the number of calls admitted and not yet ended.
func (f *inflight) running() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// drain refuses new calls and waits until the running ones have returned,
// or ctx (the disposer's timeout) ends: then it cancels their contexts and
// returns an error naming how many calls of tool were still running (a
// body that ignores its context goes on, unwaited).
func (f *inflight) drain(ctx context.Context, tool string) error {
	f.mu.Lock()
	f.closed = true
	if f.n == 0 {
		f.mu.Unlock()
		return nil
	}
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		n := f.n
		for cancel := range f.cancels {
			(*cancel)()
		}
		f.mu.Unlock()
		return fmt.Errorf("tool %q: %d call(s) still running at the dispose timeout: %w", tool, n, ctx.Err())
	}
}
