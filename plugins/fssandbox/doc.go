// Package fssandbox is the `fssandbox` plugin (sandbox.md): it puts every
// write and edit of a conversation under a sandbox mode, read-only,
// workspace-write or full-access, judged on the target's real location
// against the writable roots (sandbox.md §2).
//
// It is made only of guards, prepended listeners on fs/write-intent,
// fs/edit-intent and fs/remove-intent (package events; a delete and a
// move's source are refused as writes are, worded "remove"), so it runs before the read-before-edit
// policy whatever the mount order and never decides an intent (sandbox.md
// §3.1). It imports host, events, plugins/fsapi and plugins/tools, never a
// provider, a policy or the filesystem tools: the fs service is looked up at
// each check, only to ask a target's real location ([fsapi.RealPath]).
// Reads are never restricted.
//
// With sessionSwitch: true, and while a tool registry exists, it also
// registers the tool sandbox_mode and the prompt section tool:sandbox_mode
// (sandbox.md §4.2): a conversation narrows its own mode at once, and
// widens it only with its user's approval, asked through the
// conversation's approval channel (tools.Conversation.Ask, sandbox.md §4.3,
// conversations.md §3). Per-conversation modes live in memory until the
// conversation ends (events.ConversationClosed) or the activation ends
// (sandbox.md §4.1).
package fssandbox
