package events

import (
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Actor is the execution context of the tool call behind an event (contract
// §1.1, conversations.md §1). Listeners treat it as opaque except for these
// questions. tools.Exec implements it.
type Actor interface {
	// Conversation returns the ID of the conversation that owns the call's
	// per-caller state (read-before-edit observations, the sandbox mode),
	// and false when the call was made outside any conversation (it then
	// owns no state, contract §4). IDs start with the principal:
	// "<principal>/c/<handle>", "<principal>/s/<session>", "<principal>",
	// "cli/run/<uuid>" or "cli/call/<uuid>".
	Conversation() (id string, ok bool)
	// Principal returns who presented the call: a named bearer token's
	// name over HTTP ("default" for the single token), "anonymous" without
	// auth, "stdio" or "cli"; empty outside any conversation.
	Principal() string
	// ToolName returns the name of the tool being called, e.g. "edit".
	ToolName() string
	// SessionID returns the same as Conversation.
	//
	// Deprecated: use Conversation; SessionID is removed in the next
	// release.
	SessionID() (string, bool)
}

// IntentRequest is the input of the intent waterfalls: the resolved target,
// the actor and the call's arguments. Actor may be nil for calls made
// outside any tool.
type IntentRequest struct {
	Target fsapi.Target
	Actor  Actor
	// Arguments are the tool call's arguments as the tool received them
	// (the registry's validated tools.Args: the content of a `write`, the
	// strings of an `edit`), so a guard can judge the intended change
	// (plugin-protocol.md §1); nil outside a tool call. Listeners read them
	// and never change them.
	Arguments map[string]any
	// Type is the target's own type (not following a final symlink) on
	// [FSRemoveIntent], so a decider can let a directory or a link go
	// without a read and without I/O; empty on the other intents.
	Type fsapi.EntryType
	// Rewind marks the intents of a rewind (the checkpoint plugin's
	// `rewind`, `dshhost rewind`), which checks itself that each file
	// still holds what the tools last made of it: guards judge it as any
	// other intent (a sandbox refuses it in read-only mode), a decider
	// passes it on by calling next, whose default continuation leaves the
	// rewind unguarded.
	Rewind bool
}

// FSWriteIntent is `fs/write-intent` (contract §1.1): dispatched by the
// write tool before WriteText. Its result is the *fsapi.WriteIntent to write
// under, or nil for an unconditional write; the tool's default continuation
// returns nil. The first listener that returns without calling next decides
// (a single decision slot); guards registered before it veto with an error or
// call next and return its result unchanged. An error fails the call and the
// provider is never called.
var FSWriteIntent = host.NewChain[IntentRequest, *fsapi.WriteIntent]("fs/write-intent")

// FSEditIntent is `fs/edit-intent` (contract §1.1): dispatched by the edit
// tool before EditText. Its result is the *fsapi.EditGuard to edit under, or
// nil for unguarded; otherwise as [FSWriteIntent].
var FSEditIntent = host.NewChain[IntentRequest, *fsapi.EditGuard]("fs/edit-intent")

// FSRemoveIntent is `fs/remove-intent`: dispatched by `delete` for its
// target and by `move` for its source, after the target is named without
// following a final symlink and before the provider's Remove or Move.
// Request.Type is the target's own type. Its result is the *fsapi.RemoveGuard
// to remove under (the version of a file the conversation has seen), or nil
// for unguarded; the tools' default continuation returns nil. Otherwise as
// [FSWriteIntent]: one decision slot, guards veto with an error.
var FSRemoveIntent = host.NewChain[IntentRequest, *fsapi.RemoveGuard]("fs/remove-intent")

// ObservationKind says what a tool call saw of a file.
type ObservationKind string

const (
	// Present: the file exists at Observation.Version (non-empty).
	Present ObservationKind = "present"
	// Absent: a read found no file; Observation.Version is empty ([D4]).
	Absent ObservationKind = "absent"
)

// Observation is the payload of [FSObserved] (contract §1.1, [D4]).
// Digest, for a Present observation, is the digest of the content seen at
// Version when the tool had that content whole (fsapi.WithDigestSink), and
// zero otherwise; a decider hands it on in its guards, so that a file
// rewritten with the same bytes is still fresh ([D24]).
type Observation struct {
	Target  fsapi.Target
	Kind    ObservationKind
	Version fsapi.Version
	Digest  fsapi.Digest
	Actor   Actor
}

// FSObserved is `fs/observed` (contract §1.1): emitted after a successful
// read, write or edit (Present, with the version) and when a read finds no
// file (Absent). Listeners must be synchronous recorders: no I/O, no
// blocking, no emitting of fs events. Every listener runs even when one
// fails; the joined failure turns the tool call into an error result although
// the mutation is already on disk ([D10]).
var FSObserved = host.NewNotify[Observation]("fs/observed")
