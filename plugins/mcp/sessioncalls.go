package mcp

import (
	"context"
	"sync"
)

// sessionCalls tracks the contexts of each MCP session's running tool
// calls by the session's transport id (the HTTP `Mcp-Session-Id`), so that
// ending a session (HTTP DELETE) cancels its calls at once instead of
// waiting for them (issue 12: "DELETE ends a session"; a cancelled call
// answers `tool call aborted`).
type sessionCalls struct {
	mu    sync.Mutex
	calls map[string]map[*context.CancelFunc]struct{}
}

// begin derives the context of one call of session id; end must be called
// when the call returns. An empty id (stdio, in-memory) is tracked too: its
// session ends with its transport.
func (c *sessionCalls) begin(ctx context.Context, id string) (callCtx context.Context, end func()) {
	callCtx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]map[*context.CancelFunc]struct{}{}
	}
	set := c.calls[id]
	if set == nil {
		set = map[*context.CancelFunc]struct{}{}
		c.calls[id] = set
	}
	set[&cancel] = struct{}{}
	c.mu.Unlock()
	return callCtx, func() {
		cancel()
		c.mu.Lock()
		delete(set, &cancel)
		if len(set) == 0 {
			delete(c.calls, id) // set is still c.calls[id]: an empty set is never replaced
		}
		c.mu.Unlock()
	}
}

// cancel cancels every running call of session id and returns how many.
func (c *sessionCalls) cancel(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for cancel := range c.calls[id] {
		(*cancel)()
		n++
	}
	return n
}
