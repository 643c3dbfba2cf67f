package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/dsh-go/dsh/plugins/tools"
)

// call runs `dshhost call TOOL [JSON]`: one call in a fresh conversation (so,
// with the read-before-edit policy on, an earlier call's read never
// authorises it); prints the text; exit 0 on success, 1 on a tool error, 2
// on unusable input.
func call(ctx context.Context, env Env, c *common, rest []string) int {
	if len(rest) < 1 || len(rest) > 2 {
		fmt.Fprintf(env.Stderr, "usage: %s call [flags] TOOL [JSON]\n", program)
		return 2
	}
	rt, code := start(ctx, env, c, slog.LevelWarn)
	if rt == nil {
		return code
	}
	defer rt.close()
	var args json.RawMessage
	if len(rest) == 2 {
		args = json.RawMessage(rest[1])
	}
	res := rt.reg.Execute(ctx, rest[0], args, &tools.Exec{CallID: newID(), Conv: rt.conversation("call")})
	fmt.Fprintln(env.Stdout, res.Text())
	if res.IsError {
		if res.Code() == "UNKNOWN_TOOL" {
			var names []string
			for _, t := range rt.reg.Tools() {
				names = append(names, t.Name)
			}
			fmt.Fprintf(env.Stderr, "%s: the tools of this deployment are: %s ('%s tools' prints their schemas)\n", program, strings.Join(names, ", "), program)
		}
		if res.Code() == "FS_NOT_OBSERVED" {
			fmt.Fprintf(env.Stderr, "%s: each call is its own conversation, so a read in an earlier call does not count: run the read and this call in one '%s run' script, or disable the read-before-edit policy with --disable fspolicy\n", program, program)
		}
		return 1
	}
	return 0
}
