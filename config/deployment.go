package config

import (
	"strings"

	"github.com/dsh-go/dsh/host"
)

// defaultTree returns the default deployment, the one place it is written
// (docs/configuration.md shows it; a docs test holds the two equal): the
// local provider, the sandbox modes (workspace-write over the workspace:
// it refuses nothing the provider's confinement does not), the
// read-before-edit policy, the four filesystem tools, the four entry tools
// (toolfiles: move, delete, mkdir, file_info), the two search tools, the
// checkpoints of every change (checkpoint: checkpoints, rewind),
// and the MCP server (mounted by `dshhost serve` only; listed so that
// DSH_MCP_* variables configure it). The tool registry (tools) is always
// mounted by dshhost and need not be listed. The tree is what a file
// listing these names parses to, fresh on every call: its caller may
// change it.
func defaultTree() map[string]any {
	names := []string{"fslocal", "fssandbox", "fspolicy", "toolfs", "toolfiles", "toolsearch", "checkpoint", "mcp"}
	plugins := make([]any, len(names))
	for i, n := range names {
		plugins[i] = map[string]any{"name": n}
	}
	return map[string]any{"plugins": plugins}
}

// DefaultSource is the Source of a deployment loaded without a file.
const DefaultSource = "default deployment"

// Deployment is a loaded, validated deployment.
type Deployment struct {
	// Source is the config file's path, or DefaultSource.
	Source string
	// Workspace is the absolute workspace directory: every session's cwd,
	// and the cwd and confinement root of every fslocal entry that leaves
	// them unset (contract §3.10).
	Workspace string
	// WorkspaceFrom says who chose the workspace: "flag", "env", "file" or
	// "default" (the working directory). dshhost serve treats only the
	// default as a guess it may refine from the client's roots.
	WorkspaceFrom string
	// Watch is the file's `watch`: `dshhost serve` reloads the deployment
	// when the file changes (as with --watch).
	Watch bool
	// Entries are the plugin entries in file order, disabled ones included.
	Entries []Entry
}

// Entry is one plugin entry of a deployment.
type Entry struct {
	// ID identifies the entry (unique; defaults to Name); env variables and
	// flags address entries by it.
	ID string
	// Name is the registered plugin's name.
	Name string
	// Plugin is the registered plugin.
	Plugin *host.Plugin
	// Disabled entries are not mounted.
	Disabled bool
	// Config is the decoded, validated config: a value of the plugin's
	// config type, with the workspace applied.
	Config any
	// Declared is the same config before the workspace filled its unset
	// keys (WorkspaceUser): what `dshhost config` prints, so that the
	// printed deployment still follows --workspace when it is reused.
	Declared any
}

// LogLevelVariable is the environment variable dshhost reads its log level
// from; Load accepts it and leaves it to the CLI.
const LogLevelVariable = "DSH_LOG_LEVEL"

// StateDirVariable is the environment variable that names the directory
// under which plugins keep their state per workspace (the checkpoint
// store: `$DSH_STATE_DIR/checkpoints/<sha256 of the workspace's real
// path>`), in place of `$XDG_STATE_HOME/dshhost`. It configures no entry.
const StateDirVariable = "DSH_STATE_DIR"

// MCPTokenVariable is the environment variable `serve --http` reads its
// bearer token from: the `mcp` entry's `token` key. Every command accepts
// it (so one environment serves them all), also with a deployment that
// lists no `mcp` entry; serve then reads it itself.
const MCPTokenVariable = "DSH_MCP_TOKEN"

// Enabled returns the entries that are not disabled, in order.
func (d *Deployment) Enabled() []Entry {
	var out []Entry
	for _, e := range d.Entries {
		if !e.Disabled {
			out = append(out, e)
		}
	}
	return out
}

// Entry returns the entry with the given id.
func (d *Deployment) Entry(id string) (Entry, bool) {
	for _, e := range d.Entries {
		if e.ID == id {
			return e, true
		}
	}
	return Entry{}, false
}

// Issue is one problem found while loading: where it came from (a file
// path, `env DSH_X`, `flag --set a.b=c`), the key path, and what is wrong.
type Issue struct {
	Source  string
	Path    string
	Problem string
}

// String returns `<source>: <path>: <problem>`.
func (i Issue) String() string {
	parts := make([]string, 0, 3)
	for _, p := range []string{i.Source, i.Path, i.Problem} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ": ")
}

// Error is an invalid deployment: every issue found, in order.
type Error struct {
	Issues []Issue
}

// Error returns the issues, one per line.
func (e *Error) Error() string {
	lines := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		lines[i] = is.String()
	}
	return "invalid deployment config:\n  " + strings.Join(lines, "\n  ")
}
