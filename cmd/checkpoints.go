package cmd

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/dsh-go/dsh/plugins/checkpoint"
	"github.com/dsh-go/dsh/plugins/tools"
)

// listCheckpoints runs `dshhost checkpoints`: every step in the
// workspace's checkpoint store, of every conversation (a `run` script's
// too), one line each starting with its number, oldest first
// (docs/checkpoints.md). Exit 0; 1 when the store cannot be read; 2 when
// the deployment records no checkpoints (no entry, or an inert one).
func listCheckpoints(ctx context.Context, env Env, c *common, rest []string) int {
	if len(rest) != 0 {
		fmt.Fprintf(env.Stderr, "usage: %s checkpoints [flags]\n", program)
		return 2
	}
	rt, code := start(ctx, env, c, slog.LevelWarn)
	if rt == nil {
		return code
	}
	defer rt.close()
	svc, ok := checkpointsOf(env, rt)
	if !ok {
		return 2
	}
	lines, err := svc.Lines(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, program+":", err)
		return 1
	}
	if len(lines) == 0 {
		fmt.Fprintf(env.Stderr, "%s: no steps yet in the checkpoint store of %s\n", program, rt.dep.Workspace)
	}
	for _, l := range lines {
		fmt.Fprintln(env.Stdout, l)
	}
	return 0
}

// rewindCommand runs `dshhost rewind [--paths P]... STEP`: the workspace
// back to its state right after step STEP (0: before the first step in
// the store), over the steps of every conversation, with the rules of the
// rewind tool; it prints the rewind's report. Exit 0 when every file was
// put back, 1 when the rewind failed or left a file alone, 2 on unusable
// input.
func rewindCommand(ctx context.Context, env Env, c *common, rest []string) int {
	if len(rest) != 1 {
		fmt.Fprintf(env.Stderr, "usage: %s rewind [flags] STEP\n", program)
		return 2
	}
	for _, p := range c.paths {
		if strings.TrimSpace(p) == "" {
			fmt.Fprintf(env.Stderr, "%s rewind: --paths must name a file or directory, not %q\n", program, p)
			return 2
		}
	}
	to, err := strconv.ParseInt(rest[0], 10, 64)
	if err != nil || to < 0 {
		fmt.Fprintf(env.Stderr, "%s rewind: STEP must be 0 or a step number that '%s checkpoints' prints, not %q\n", program, program, rest[0])
		return 2
	}
	rt, code := start(ctx, env, c, slog.LevelWarn)
	if rt == nil {
		return code
	}
	defer rt.close()
	svc, ok := checkpointsOf(env, rt)
	if !ok {
		return 2
	}
	exec := &tools.Exec{CallID: newID(), Tool: "rewind", Conv: rt.conversation("rewind")}
	rw, err := svc.Rewind(ctx, exec, to, c.paths)
	if err != nil {
		fmt.Fprintln(env.Stderr, program+":", err)
		return 1
	}
	fmt.Fprintln(env.Stdout, rw.Text())
	if len(rw.Left) > 0 {
		return 1
	}
	return 0
}

// checkpointsOf returns the deployment's checkpoint service, or says why
// there is none.
func checkpointsOf(env Env, rt *runtime) (*checkpoint.Checkpoints, bool) {
	svc, ok := checkpoint.Key.Get(rt.host.Root())
	switch {
	case !ok:
		fmt.Fprintf(env.Stderr, "%s: this deployment records no checkpoints: its checkpoint entry is missing, disabled or failed ('%s plugins' says which)\n", program, program)
	case svc.Inert() != "":
		fmt.Fprintf(env.Stderr, "%s: this deployment records no checkpoints: %s\n", program, svc.Inert())
		return nil, false
	}
	return svc, ok
}

// pathsFlag registers rewind's --paths.
func pathsFlag(fs *flag.FlagSet, c *common) {
	fs.Var(&c.paths, "paths", "rewind only this `PATH` (repeatable; relative to the workspace)")
}
