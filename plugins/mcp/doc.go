// Package mcp is the `mcp` plugin: it serves a host's tool registry over
// the Model Context Protocol with github.com/modelcontextprotocol/go-sdk,
// on stdio (one JSON-RPC message per line, framed robustly: StdioTransport)
// or on streamable HTTP at /mcp (stateful sessions, a bearer token and a
// DNS-rebinding guard: docs/mcp.md). dshhost serve mounts it; call and run
// never do. It injects the registry and provides the running [Server] under
// [Key].
//
// The server mirrors the registry's tools into the SDK server (our exact
// names, descriptions, input and output schemas, plus read-only/destructive
// annotations) and keeps them in sync, so clients get tools/list_changed
// when a tool plugin unloads or returns; it sends the assembled prompt
// sections as the server's instructions. Calls go through
// [tools.Registry.Execute]: the registry, not the SDK, validates arguments,
// so the model sees the contract's messages (contract §5); the result's
// text becomes text content, its summary structured content, and a coded
// failure's {name, code} goes in _meta. On stdio an ordinary tools/call is
// answered without the SDK's request path, its result encoded once and
// byte for byte as the SDK encodes it (direct.go; the SDK compacted a
// read's text twice); every other request goes through the SDK.
//
// Every MCP session (the stdio connection, each HTTP session) is its own
// tools.Session (its own read-before-edit state, contract §4); when it ends
// (EOF, HTTP DELETE, idle for sessionIdleTimeout) the plugin emits
// session/closed so plugins drop its state. Calls are bounded (maxInFlight
// at once, each under callTimeout; a client's notifications/cancelled
// reaches the tool's context) and drained by [Server.Shutdown]. The
// workspace may come from the client's first usable root (roots.go, the one
// adapter for that deprecated feature). The package imports the host, the
// events and the tools contract only.
package mcp
