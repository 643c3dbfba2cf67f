package events

import "github.com/dsh-go/dsh/host"

// ConversationClosed is `conversation/closed` (conversations.md §2): emitted
// by a front end (the MCP server) when one of its conversations ends (its
// legacy session ended, it was idle for the front end's idle timeout, or it
// was evicted past the front end's bound), with the conversation ID (the
// tools.Conversation ID its calls carried) as payload. Listeners drop the
// per-conversation state they keep for it; they must not block. It is
// emitted exactly once per conversation, after its last call returned; a
// later call with the same ID starts a new, empty conversation.
var ConversationClosed = host.NewNotify[string]("conversation/closed")

// SessionClosed is ConversationClosed under its earlier name.
//
// Deprecated: listen to [ConversationClosed]; this alias is removed in the
// next release.
var SessionClosed = ConversationClosed
