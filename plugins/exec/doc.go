// Package exec is the plugin `exec`: a plugin in any language, run as a
// child process that speaks the event API on its stdio
// (plugin-protocol.md §1–§3, docs/plugin-protocol.md).
//
// Each entry starts its command at apply, without a shell, in the
// deployment file's directory, with a minimal environment; exchanges
// `initialize` with it (up to `timeout`); and then, for what the child
// declared:
//
//   - asks it about fs/write-intent and fs/edit-intent as a guard (through
//     the host's ordered wire-guard list, events/wire, ahead of the
//     in-process decider, in deployment order), each request bounded by
//     `timeout`;
//   - forwards fs/observed and conversation/closed as notifications
//     through a bounded queue that drops the oldest and counts the drops;
//   - registers its tools in the tool registry, described as running
//     outside the workspace sandbox, and sends their calls as tools/call
//     under the call's own context (a cancelled call sends `cancel`).
//
// A child that exits is restarted with backoff (at most 5 starts a
// minute); while it is down, onFailure decides every intent (§2). Disposal
// closes the child's stdin, then sends SIGTERM after 2 s and SIGKILL after
// 2 s more. The child's stderr goes to the server log, line by line.
//
// The child runs with the server's privileges and sees the real file
// system: confinement and the sandbox bind the tools, not the plugins.
//
// It imports host, events, events/wire, plugins/fsapi and plugins/tools,
// never another plugin.
package exec
