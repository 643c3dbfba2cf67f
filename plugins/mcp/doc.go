// Package mcpserver serves a host's tool registry over the Model Context
// Protocol with github.com/modelcontextprotocol/go-sdk. It mirrors the
// registry's tools into the SDK server (our exact names, descriptions, input
// and output schemas, plus read-only/destructive annotations) and keeps them
// in sync, so clients get tools/list_changed when a tool plugin unloads or
// returns; it sends the assembled prompt sections as the server's
// instructions. Calls go through [tools.Registry.Execute]: the registry, not
// the SDK, validates arguments, so the model sees the contract's messages
// (contract §5); the result's text becomes text content, its structured value
// structured content, and a coded failure's {name, code} goes in _meta.
//
// Every MCP session is its own tools.Session (its own read-before-edit
// state, contract §4); a client's cancellation reaches the tool's context.
// The package imports the host and the tools contract only.
package mcp
