package mcp

import (
	"context"

	"github.com/dsh-go/dsh/events"
)

// closed emits session/closed for a session that ended (sandbox.md §4.1),
// so that plugins drop its state; a listener's failure is logged.
func (s *Server) closed(id string) {
	if err := events.SessionClosed.Emit(context.Background(), s.scope, id); err != nil {
		s.opts.Logger.Warn("session/closed listener failed", "session", id, "err", err)
	}
}
