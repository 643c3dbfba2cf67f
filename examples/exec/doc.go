// Package exec holds the examples of docs/plugin-protocol.md, plugins in
// other languages that the exec plugin runs as child processes: the Python
// guard no_secrets.py, the TypeScript recorder recorder.ts, and dsh.yaml,
// the default stack with both. It has no Go code; its tests run the
// examples through every tool path.
package exec
