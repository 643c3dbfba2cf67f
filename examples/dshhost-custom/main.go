// Command dshhost-custom is dshhost with the two example plugins added: the
// whole of a custom binary. It is cmd/dshhost/main.go with two more imports;
// each plugin package registers itself in init (host.Register), so a
// deployment file can name `auditlog` and `protectedpaths` next to the
// built-in plugins. See docs/writing-a-plugin.md.
//
//	go build -o dshhost-custom ./examples/dshhost-custom
//	dshhost-custom serve --config examples/dshhost-custom/dsh.yaml --workspace DIR
package main

import (
	"os"

	"github.com/dsh-go/dsh/cmd"
	_ "github.com/dsh-go/dsh/examples/auditlog"
	_ "github.com/dsh-go/dsh/examples/protectedpaths"
	_ "github.com/dsh-go/dsh/plugins/standard"
)

func main() { os.Exit(cmd.Main(os.Args[1:])) }
