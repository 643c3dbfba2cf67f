package tools

import "encoding/json"

// Conversation is the owner of a call's per-caller state (conversations.md
// §1): ID names it (read-before-edit observations and sandbox modes are kept
// per ID, contract §4) and starts with Principal, who presented the call;
// Cwd is its working directory, the base of relative paths (contract §6.4;
// empty: the provider's own cwd). Ask is its approval channel (sandbox.md
// §4.3): nil when the conversation has no way to ask its user.
type Conversation struct {
	ID        string
	Principal string
	Cwd       string
	Ask       AskFunc
}

// Exec is the execution value of one tool call (contract §5.1): the call's
// id, the tool's name, the parent call for nested calls (nil at top level),
// Conv, the conversation the call runs in, which may be nil, and where its
// progress goes. It is the
// actor that fs event listeners see (contract §1.1): it answers
// Conversation, Principal and ToolName.
type Exec struct {
	CallID string
	Tool   string
	Parent *Exec
	Conv   *Conversation
	// Report receives the call's progress when its client asked for it
	// (nil otherwise); tools report through the throttle of
	// [Exec.Progress].
	Report ProgressFunc
	// Log, when set, tells the call's client a message at level (MCP's
	// logging levels: "debug", "info", "notice", "warning", "error", ...),
	// which the client gets only at or above the level it chose; tools
	// log through [Exec.Notify].
	Log func(level, message string)
	// Responses are the client's answers to the requests of the call's
	// previous round ([InputRequired]), by request key, each the JSON of
	// the answer (MCP's ElicitResult, CreateMessageResult,
	// ListRootsResult); nil on a first round. State is the State that
	// round returned.
	Responses map[string]json.RawMessage
	State     string
	// Capabilities is what the call's client declared it can do (MCP's
	// ClientCapabilities object: "elicitation", "sampling", "roots", ...),
	// nil when its front end knows nothing of it.
	Capabilities json.RawMessage
}

// Notify tells the call's client message at level, when its front end can
// (Exec.Log); otherwise it does nothing.
func (e *Exec) Notify(level, message string) {
	if e != nil && e.Log != nil {
		e.Log(level, message)
	}
}

// Conversation returns the conversation's ID, and false when the call has
// none.
func (e *Exec) Conversation() (string, bool) {
	if e == nil || e.Conv == nil {
		return "", false
	}
	return e.Conv.ID, true
}

// Principal returns who presented the call (conversations.md §1), or ""
// when the call has no conversation.
func (e *Exec) Principal() string {
	if e == nil || e.Conv == nil {
		return ""
	}
	return e.Conv.Principal
}

// SessionID returns the same as Conversation.
//
// Deprecated: use Conversation; SessionID is removed in the next release.
func (e *Exec) SessionID() (string, bool) { return e.Conversation() }

// Call returns the call's id (CallID), which the wire carries as the
// actor's `call` (plugin-protocol.md §1).
func (e *Exec) Call() string {
	if e == nil {
		return ""
	}
	return e.CallID
}

// ToolName returns the name of the tool being called.
func (e *Exec) ToolName() string {
	if e == nil {
		return ""
	}
	return e.Tool
}

// Cwd returns the conversation's working directory, or "" without one.
func (e *Exec) Cwd() string {
	if e == nil || e.Conv == nil {
		return ""
	}
	return e.Conv.Cwd
}
