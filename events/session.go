package events

import "github.com/dsh-go/dsh/host"

// SessionClosed is `session/closed` (sandbox.md §4.1): emitted by a front
// end (the MCP server) when one of its sessions ends, with the session's ID
// (the tools.Session ID its calls carried) as payload. Listeners drop the
// per-session state they keep for it; they must not block. It is emitted at
// most once per session, after the session's last call returned.
var SessionClosed = host.NewNotify[string]("session/closed")
