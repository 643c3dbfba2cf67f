package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/dsh-go/dsh/plugins/tools"
)

// call runs `dshhost call TOOL JSON`: one call in a fresh session; prints
// the text; exit 0 on success, 1 on a tool error, 2 on unusable input.
func call(ctx context.Context, env Env, c *common, rest []string) int {
	if len(rest) < 1 || len(rest) > 2 {
		fmt.Fprintln(env.Stderr, "usage: dshhost call [flags] TOOL [JSON]")
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
	res := rt.reg.Execute(ctx, rest[0], args, &tools.Exec{Session: rt.session()})
	fmt.Fprintln(env.Stdout, res.Text())
	if res.IsError {
		return 1
	}
	return 0
}
