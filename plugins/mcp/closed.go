package mcp

import (
	"context"

	"github.com/dsh-go/dsh/events"
)

// closed emits conversation/closed for a conversation that ended
// (conversations.md §2), so that plugins drop its state; a listener's
// failure is logged.
func (s *Server) closed(id string) {
	if err := events.ConversationClosed.Emit(context.Background(), s.scope, id); err != nil {
		s.opts.Logger.Warn("conversation/closed listener failed", "conversation", id, "err", err)
	}
}
