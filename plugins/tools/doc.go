// Package tools is the tool registry: the `tools` plugin provides the
// [Registry] under [Key] (contract §1, §5). Tools register a name, a
// description, the JSON schemas of their arguments and structured value, a
// concurrency classifier and an executor; [Registry.Execute] runs the
// pipeline of contract §5.2 (abort check, lookup, argument validation with the
// exact messages of §5.3, the body under panic containment, output check,
// rendering, diff metadata) and always returns a [Result], never an error.
// The registry also assembles the prompt sections tools register (§5.6).
//
// Tool plugins (toolfs) and front ends (the MCP server, the CLI) import this
// package; it imports only the host. The execution value [Exec] carries the
// session and is the actor of the fs events (it implements events.Actor
// without importing events).
package tools
