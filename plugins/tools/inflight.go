package tools

import (
	"context"
	"fmt"
	"sync"
)

// inflight counts the calls of one registered tool that are running, so
// that removing the tool (its plugin unloading, swapped by a config reload,
// or shutting down) lets them finish first, within the disposer's timeout.
// Once drained it admits no new call: a call that found the tool just before
// its removal reports it unknown instead of running on a plugin that is
// going away.
type inflight struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{} // closed when draining and n is 0
}

// enter admits one call; false once the tool is being removed.
func (f *inflight) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.n++
	return true
}

// leave ends one admitted call.
func (f *inflight) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

// drain refuses new calls and waits until the running ones have returned,
// or ctx (the disposer's timeout) ends: then it returns an error naming how
// many calls of tool were still running; they go on, unwaited.
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
		f.mu.Unlock()
		return fmt.Errorf("tool %q: %d call(s) still running at the dispose timeout: %w", tool, n, ctx.Err())
	}
}
