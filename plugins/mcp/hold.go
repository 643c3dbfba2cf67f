package mcp

// Hold defers mirroring registry changes until the returned release runs,
// so that a batch of changes (a config reload swapping plugins: tools
// withdrawn, then registered again) reaches clients as one tool set and one
// coalesced notifications/tools/list_changed; nothing is sent when no change
// came in. Holds nest; release is idempotent.
func (s *Server) Hold() (release func()) {
	s.mu.Lock()
	s.held++
	s.mu.Unlock()
	released := false
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if released {
			return
		}
		released = true
		s.held--
		if s.held == 0 && s.stale {
			s.stale = false
			s.syncLocked()
		}
	}
}
