package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// The model-facing texts of the two tools, byte for byte as
// docs/checkpoints.md gives them.

const checkpointsDescription = "List the steps of this conversation that changed files through the tools: each step's number, time, tool, and the files it changed with the lines added and removed. Use a step number with rewind."

const checkpointsParameters = `{"type":"object","properties":{"limit":{"type":"integer","description":"How many of the most recent steps to list, oldest first. Defaults to 100."}}}`

const rewindDescription = "Put back every file this conversation changed after a step to its exact bytes at that step (to_step 0: before this conversation's first step); files created after it are deleted. A file changed since by anyone else is left alone and listed. The rewind is a step itself, so it can be undone."

const rewindParameters = `{"type":"object","properties":{"to_step":{"type":"integer","description":"The step to go back to, as the checkpoints tool numbers it; 0 is the state before this conversation's first step."},"paths":{"type":"array","items":{"type":"string"},"description":"Rewind only these files. Defaults to every file changed after the step."}},"required":["to_step"]}`

const section = "Every change the file tools make is a step you can undo: the checkpoints tool lists this conversation's steps, and rewind puts files back to their exact bytes at an earlier step. Changes made outside these tools (by a shell, for example) are not recorded."

// defaultLimit is how many steps checkpoints lists without a limit.
const defaultLimit = 100

// checkpoints is the `checkpoints` tool: the call's conversation's steps
// of its current timeline, the most recent limit of them, oldest first.
func (r *recorder) checkpoints(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	limit := defaultLimit
	if v, ok := args.Number("limit"); ok {
		if v < 1 || v > math.MaxInt32 {
			return nil, errors.New("limit must be a positive integer")
		}
		limit = int(v)
	}
	conv, ok := exec.Conversation()
	if !ok {
		return nil, errors.New("the call has no conversation, so it has no steps")
	}
	if err := r.sync(ctx); err != nil {
		return nil, err
	}
	tl := r.timeline(conv)
	if tl == "" {
		return "no steps yet: this conversation has changed no file through the tools", nil
	}
	steps, stored, err := r.store.snapshot()
	if err != nil {
		return nil, err
	}
	lost := r.lostOf(scope{Timeline: tl}, stored)
	var mine []Step
	for _, s := range steps {
		if s.Timeline == tl {
			mine = append(mine, s)
		}
	}
	if len(mine) == 0 && len(lost) == 0 {
		return "no steps yet: this conversation has changed no file through the tools", nil
	}
	var lines []string
	if len(mine) > limit {
		lines = append(lines, fmt.Sprintf("%d earlier steps not shown; pass a larger limit to see them", len(mine)-limit))
		mine = mine[len(mine)-limit:]
	}
	for _, s := range mine {
		lines = append(lines, r.line(s, false))
	}
	return strings.Join(append(lines, lostLines(lost)...), "\n"), nil
}

// lostLines are the steps the store refused as checkpoints and `dshhost
// checkpoints` list them, after the steps: `not stored: <time> <tool>
// <path>[; <path>…]: <why>`.
func lostLines(lost []Lost) []string {
	var out []string
	for _, l := range lost {
		out = append(out, fmt.Sprintf("not stored: %s %s %s: %s", l.Time.UTC().Format(time.RFC3339), l.Tool, strings.Join(l.Paths, "; "), l.Why))
	}
	return out
}

// line is one step as checkpoints and `dshhost checkpoints` list it:
// `<n> <time> [<conversation>] <tool> <change>[; <change>…]`, the time in
// UTC to the second, each change `<path> +<added> -<removed>` with
// `created`, `deleted`, `(not restorable: <why>)` or `(content evicted)`
// where they apply, and ` (not completed)` after a rewind a crash cut
// short (or one still running in another process).
func (r *recorder) line(s Step, conversation bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s ", s.N, s.Time.UTC().Format(time.RFC3339))
	if conversation {
		c := s.Conversation
		if c == "" {
			c = "(no conversation)"
		}
		b.WriteString(c + " ")
	}
	b.WriteString(s.Tool)
	for i, c := range s.Changes {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString("; ")
		}
		b.WriteString(c.Path)
		switch {
		case c.Before.Absent && !c.After.Absent:
			b.WriteString(" created")
		case !c.Before.Absent && c.After.Absent:
			b.WriteString(" deleted")
		}
		if c.Counted {
			fmt.Fprintf(&b, " +%d -%d", c.Added, c.Removed)
		}
		switch {
		case !c.Before.kept():
			b.WriteString(" (not restorable: " + c.Before.Omitted + ")")
		case c.Before.SHA256 != "" && !r.store.has(c.Before.SHA256):
			b.WriteString(" (content evicted)")
		}
	}
	if s.Pending {
		b.WriteString(" (not completed)")
	}
	return b.String()
}

// rewindTool is the `rewind` tool: a rewind of the call's conversation's
// current timeline.
func (r *recorder) rewindTool(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	v, _ := args.Number("to_step")
	if v < 0 || v != math.Trunc(v) || v > 1<<53-1 { // above 2^53-1 a JSON number is not exact
		return nil, errors.New("to_step must be 0 or a step number")
	}
	conv, ok := exec.Conversation()
	if !ok {
		return nil, errors.New("the call has no conversation, so it has no steps to rewind")
	}
	if err := r.sync(ctx); err != nil {
		return nil, err
	}
	tl := r.timeline(conv) // "" when it made no step: none is its
	paths, err := r.resolvePaths(ctx, args, exec)
	if err != nil {
		return nil, err
	}
	rw, err := r.rewind(ctx, exec, args, scope{Timeline: tl}, int64(v), paths)
	if err != nil {
		return nil, err
	}
	return rw.Text(), nil
}

// resolvePaths resolves the paths argument for exec's conversation: the
// provider's keys, each with the path as given; nil without the argument.
func (r *recorder) resolvePaths(ctx context.Context, args tools.Args, exec *tools.Exec) (*pathSet, error) {
	raw, ok := args["paths"].([]any)
	if !ok {
		return nil, nil
	}
	if len(raw) == 0 {
		return nil, tools.ErrInvalidArgs("paths must name at least one file; leave it out to rewind every file")
	}
	var paths []string
	for i, p := range raw {
		s, ok := p.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, tools.ErrInvalidArgs(fmt.Sprintf("paths[%d] must be a non-empty string", i))
		}
		paths = append(paths, s)
	}
	return r.keysOf(ctx, paths, exec.Cwd()), nil
}

// pathSet is the paths a rewind is limited to: the provider's keys, each
// with the path as given, and the paths that do not resolve (outside the
// workspace, a parent that is a symlink out of it), each with why; the
// rewind leaves those alone.
type pathSet struct {
	keys map[string]string
	bad  []LeftAlone
}

// keysOf resolves paths against cwd.
func (r *recorder) keysOf(ctx context.Context, paths []string, cwd string) *pathSet {
	out := &pathSet{keys: map[string]string{}}
	for _, p := range paths {
		t, err := r.fs.Resolve(ctx, p, fsapi.CwdOptions(p, cwd))
		if err != nil {
			out.bad = append(out.bad, LeftAlone{p, err.Error()})
			continue
		}
		out.keys[t.Key] = t.DisplayPath
	}
	return out
}

// text renders a tool's value, its text.
func text(_ tools.Args, v any) []tools.Block { return []tools.Block{tools.TextBlock(v.(string))} }
