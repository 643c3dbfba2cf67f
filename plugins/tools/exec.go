package tools

// Session is the calling agent session: ID identifies it (read-before-edit
// state is kept per ID, contract §4) and Cwd is its working directory, the
// base of relative paths (contract §6.4; empty: the provider's own cwd).
// Ask is the session's approval channel (sandbox.md §4.3): nil when the
// session has no way to ask its user.
type Session struct {
	ID  string
	Cwd string
	Ask AskFunc
}

// Exec is the execution value of one tool call (contract §5.1): the call's
// id, the tool's name, the parent call for nested calls (nil at top level)
// and the session, which may be nil. It is the actor that fs event listeners
// see (contract §1.1): it answers SessionID and ToolName.
type Exec struct {
	CallID  string
	Tool    string
	Parent  *Exec
	Session *Session
}

// SessionID returns the session's ID, and false when the call has no
// session.
func (e *Exec) SessionID() (string, bool) {
	if e == nil || e.Session == nil {
		return "", false
	}
	return e.Session.ID, true
}

// ToolName returns the name of the tool being called.
func (e *Exec) ToolName() string {
	if e == nil {
		return ""
	}
	return e.Tool
}

// Cwd returns the session's working directory, or "" without a session.
func (e *Exec) Cwd() string {
	if e == nil || e.Session == nil {
		return ""
	}
	return e.Session.Cwd
}
