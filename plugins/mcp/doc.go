// Package mcp is the `mcp` plugin, the front end of a deployment: it serves
// a host's tool registry over the Model Context Protocol with
// github.com/modelcontextprotocol/go-sdk, on stdio (one JSON-RPC message per
// line, framed robustly: StdioTransport) or on streamable HTTP at /mcp
// (named bearer tokens, a DNS-rebinding guard and the bounds of
// httpbounds.go: docs/mcp.md), both eras of the protocol on each: legacy
// sessions (initialize) and 2026-07-28's stateless requests. dshhost serve
// mounts it as the entry that provides frontend.Key; call and run never do.
//
// The server mirrors the registry's tools into the SDK server (our exact
// names, descriptions, input and output schemas, plus read-only/destructive
// annotations) and keeps them in sync, so clients get tools/list_changed
// when a tool plugin unloads or returns; it sends the assembled prompt
// sections as the server's instructions. Calls go through
// [tools.Registry.Execute]: the registry, not the SDK, validates arguments,
// so the model sees the contract's messages (contract §5); the result's
// text becomes text content, its summary structured content, and a coded
// failure's {name, code} goes in _meta. The SDK routes and answers every
// request but a plain stdio tools/call, which the fast path (fast.go)
// answers byte for byte as the SDK would.
//
// Per-caller state belongs to a conversation (conversation.go,
// conversations.md): named by a handle in the request's _meta, else the
// legacy session, else the principal who presented the request. A
// conversation ends when its session ends, when it is idle for
// conversationIdleTimeout, or past maxConversations; the plugin then emits
// conversation/closed so plugins drop its state. Approvals are asked
// through elicitation in a legacy session and through multi round-trip
// results at 2026-07-28 (approval.go). Calls are bounded (maxInFlight at
// once, each under callTimeout; a client's notifications/cancelled reaches
// the tool's context) and drained by [Server.Shutdown]. The workspace may
// come from a stdio client's first usable root (roots.go). The package
// imports the host, the events and the tools and front-end contracts only.
package mcp
