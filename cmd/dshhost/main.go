// Command dshhost serves the dsh filesystem tools to AI agents: over MCP on
// stdio (dshhost serve) or from the command line (call, run, tools, prompt,
// plugins, config). See README.md and docs/.
//
// A custom binary with extra plugins copies this file and adds its own
// plugin imports (or passes its plugins to cmd.Main).
package main

import (
	"os"

	"github.com/dsh-go/dsh/cmd"
	_ "github.com/dsh-go/dsh/plugins/standard"
)

func main() { os.Exit(cmd.Main(os.Args[1:])) }
