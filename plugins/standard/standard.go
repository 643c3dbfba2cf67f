// Package standard registers the default plugin set by importing it: the
// tool registry (tools), the local provider (fslocal), the sandbox modes
// (fssandbox), the read-before-edit policy (fspolicy), the filesystem tools
// (toolfs), the entry tools move, delete, mkdir and file_info
// (toolfiles), the search tools (toolsearch), the checkpoints of every
// change with the tools checkpoints and rewind (checkpoint) and the MCP server (mcp, which
// only dshhost serve mounts). It also links in the editor tool
// (tooleditor), which the default deployment does not mount: a deployment
// opts in by listing it (editor.md §1), and exec, which runs plugins in
// other languages as child processes (plugin-protocol.md §3) for the
// entries that name it. cmd/dshhost imports it; a custom
// binary imports it next to its own plugin packages.
package standard

import (
	// The default plugins register themselves in init.
	_ "github.com/dsh-go/dsh/plugins/checkpoint"
	_ "github.com/dsh-go/dsh/plugins/exec"
	_ "github.com/dsh-go/dsh/plugins/fslocal"
	_ "github.com/dsh-go/dsh/plugins/fspolicy"
	_ "github.com/dsh-go/dsh/plugins/fssandbox"
	_ "github.com/dsh-go/dsh/plugins/mcp"
	_ "github.com/dsh-go/dsh/plugins/tooleditor"
	_ "github.com/dsh-go/dsh/plugins/toolfiles"
	_ "github.com/dsh-go/dsh/plugins/toolfs"
	_ "github.com/dsh-go/dsh/plugins/tools"
	_ "github.com/dsh-go/dsh/plugins/toolsearch"
)
