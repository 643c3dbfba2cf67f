// Package standard registers the default plugin set by importing it: the
// tool registry (tools), the local provider (fslocal), the sandbox modes
// (fssandbox), the read-before-edit policy (fspolicy), the filesystem
// tools (toolfs) and the MCP server (mcp, which only dshhost serve mounts). cmd/dshhost imports it; a custom binary imports it next to
// its own plugin packages.
package standard

import (
	// The default plugins register themselves in init.
	_ "github.com/dsh-go/dsh/plugins/fslocal"
	_ "github.com/dsh-go/dsh/plugins/fspolicy"
	_ "github.com/dsh-go/dsh/plugins/fssandbox"
	_ "github.com/dsh-go/dsh/plugins/mcp"
	_ "github.com/dsh-go/dsh/plugins/toolfs"
	_ "github.com/dsh-go/dsh/plugins/tools"
)
