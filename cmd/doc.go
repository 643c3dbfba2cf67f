// Package cmd is the dshhost command line as a library: [Main] parses the
// arguments, loads the deployment (package config), boots it on a fresh host
// (the tool registry always first, then every enabled entry in order, then
// the boot audit) and runs one command: serve (MCP over stdio or HTTP, package
// the mcp plugin, plugins/mcp), call, run, tools, prompt, plugins or config.
//
// Plugins are found by name in the host's compile-time registry, Caddy
// style. cmd/dshhost/main.go blank-imports plugins/standard and calls Main; a
// custom binary does the same with its own plugin packages added (or passes
// them to Main).
//
// Exit codes: 0 success; 1 a tool call failed (call); 2 unusable input
// (flags, config, script) or a failed boot.
package cmd
