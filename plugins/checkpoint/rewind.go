package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Rewound is the outcome of a rewind to step To: the files restored to
// their bytes at To, those deleted (created after To), those already as
// they were, and those left alone, each with why; Step is the rewind's own
// step (0 when it changed nothing), which a rewind to Undo, the step of
// the same scope before it, undoes.
type Rewound struct {
	To        int64
	Step      int64
	Undo      int64 // the step a rewind to undoes this one (0: the start)
	Restored  []string
	Deleted   []string
	Unchanged []string
	Left      []LeftAlone
}

// LeftAlone is a file a rewind did not touch, and why (`changed since step
// 7 by someone else`, `not restorable: larger than 33554432 bytes`, …).
type LeftAlone struct {
	Path string
	Why  string
}

// scope says which steps a rewind or a listing takes: a timeline's (a
// conversation's incarnation), or every step (Timeline "").
type scope struct {
	Timeline string
}

func (sc scope) has(s Step) bool { return sc.Timeline == "" || s.Timeline == sc.Timeline }

// target is one file a rewind puts back: the bytes it had before the
// first later step changed it, and what the last later step left.
type target struct {
	key, path string
	want      State // the file at the step rewound to
	last      State // what the last later step left
	lastStep  int64
	lost      string // why a later change of it was not stored ("" when none was lost)
}

// rewind restores every file that a step of sc after step to changed to
// its state at to (only the files of paths, when it is not nil: provider
// keys with the spelling to report), through the intent guards (marked
// Rewind, so no decider decides), as exec's call. A file whose current
// bytes are not what the last of those steps left is left alone, as is a
// file whose content at to was not kept or was evicted. Errors: `step <N>
// does not exist`, `step <N> belongs to another conversation`, `nothing to
// rewind: no step … after step <N>`, a store failure, ctx's end.
func (r *recorder) rewind(ctx context.Context, exec *tools.Exec, args map[string]any, sc scope, to int64, paths map[string]string) (Rewound, error) {
	out := Rewound{To: to}
	if err := r.sync(ctx); err != nil {
		return out, err
	}
	steps, err := r.store.snapshot()
	if err != nil {
		return out, err
	}
	if to < 0 {
		return out, errors.New("to_step must be 0 or a step number")
	}
	if to > 0 {
		i := indexOf(steps, to)
		switch {
		case i < 0:
			return out, fmt.Errorf("step %d does not exist", to)
		case !sc.has(steps[i]):
			return out, fmt.Errorf("step %d belongs to another conversation", to)
		}
	}
	var targets []*target
	byKey := map[string]*target{}
	for _, s := range steps {
		if s.N <= to || !sc.has(s) {
			continue
		}
		for _, c := range s.Changes {
			tg := byKey[c.Key]
			if tg == nil {
				tg = &target{key: c.Key, want: c.Before}
				byKey[c.Key] = tg
				targets = append(targets, tg)
			}
			tg.path, tg.last, tg.lastStep = c.Path, c.After, s.N
		}
	}
	for _, l := range r.lostOf(sc) {
		for _, k := range l.keys {
			if tg := byKey[k]; tg != nil {
				tg.lost = l.why
			}
		}
	}
	if len(targets) == 0 {
		who := "this conversation"
		if sc.Timeline == "" {
			who = "the store"
		}
		return out, fmt.Errorf("nothing to rewind: %s has no step after step %d", who, to)
	}
	if paths != nil {
		kept := targets[:0]
		for _, tg := range targets {
			if _, ok := paths[tg.key]; ok {
				kept = append(kept, tg)
				delete(paths, tg.key)
			}
		}
		targets = kept
		for _, p := range paths {
			out.Left = append(out.Left, LeftAlone{p, fmt.Sprintf("not changed after step %d", to)})
		}
	}
	for _, tg := range targets {
		done, why := r.restore(ctx, exec, args, tg)
		switch done {
		case "restored":
			out.Restored = append(out.Restored, tg.path)
		case "deleted":
			out.Deleted = append(out.Deleted, tg.path)
		case "unchanged":
			out.Unchanged = append(out.Unchanged, tg.path)
		default:
			out.Left = append(out.Left, LeftAlone{tg.path, why})
		}
		if ctx.Err() != nil {
			break
		}
	}
	if c := r.finish(exec); c != nil {
		select {
		case <-c.done:
			out.Step = c.n
		case <-ctx.Done():
		}
	}
	for _, s := range steps {
		if sc.has(s) && (out.Step == 0 || s.N < out.Step) {
			out.Undo = s.N
		}
	}
	return out, ctx.Err()
}

// indexOf returns the index of step n in steps, -1 when it is not there.
func indexOf(steps []Step, n int64) int {
	for i, s := range steps {
		if s.N == n {
			return i
		}
	}
	return -1
}

// restore puts tg back; it returns "restored", "deleted" or "unchanged",
// or "" and why it left the file alone.
func (r *recorder) restore(ctx context.Context, exec *tools.Exec, args map[string]any, tg *target) (string, string) {
	if !tg.want.kept() {
		return "", "not restorable: " + tg.want.Omitted
	}
	if tg.want.SHA256 != "" && !r.store.has(tg.want.SHA256) {
		return "", "its content was evicted from the store"
	}
	t, err := r.fs.Resolve(ctx, tg.path, fsapi.ResolveOptions{})
	if err != nil {
		return "", err.Error()
	}
	if t.Key != tg.key {
		return "", "its path names another file now"
	}
	info, sum, digest, err := r.current(ctx, t)
	if err != nil {
		return "", err.Error()
	}
	// A file already as it was at the step (put back by a rewind a crash
	// interrupted, or by someone else) needs nothing, whoever changed it.
	changed := fmt.Sprintf("changed since step %d by someone else", tg.lastStep)
	if why := tg.lost; why != "" {
		changed = fmt.Sprintf("changed since step %d by a call whose step was not stored (%s)", tg.lastStep, why)
	}
	switch {
	case tg.want.Absent && info == nil, !tg.want.Absent && info != nil && sum == tg.want.SHA256:
		return "unchanged", ""
	case tg.last.Absent && info != nil, !tg.last.Absent && info == nil:
		return "", changed
	case !tg.last.Absent && string(info.Version) != tg.last.Version &&
		(tg.last.SHA256 == "" || sum != tg.last.SHA256) && (tg.last.Digest == "" || digest != tg.last.Digest):
		return "", changed
	}
	if tg.want.Absent {
		rm, ok := r.fs.(fsapi.Remover)
		if !ok {
			return "", "the file system cannot delete files"
		}
		req := events.IntentRequest{Target: t, Actor: exec, Arguments: args, Type: fsapi.TypeFile, Rewind: true}
		if _, err := events.FSRemoveIntent.Waterfall(ctx, r.s, req, func(context.Context) (*fsapi.RemoveGuard, error) { return nil, nil }); err != nil {
			return "", err.Error()
		}
		if err := rm.Remove(ctx, t, fsapi.RemoveRequest{Type: fsapi.TypeFile, Guard: &fsapi.RemoveGuard{Version: info.Version}}); err != nil {
			return "", err.Error()
		}
		if err := events.FSObserved.Emit(ctx, r.s, events.Observation{Target: t, Kind: events.Absent, Actor: exec}); err != nil {
			return "", err.Error()
		}
		return "deleted", ""
	}
	rs, ok := r.fs.(fsapi.Restorer)
	if !ok {
		return "", "the file system cannot restore bytes exactly"
	}
	data, err := r.store.readBlob(tg.want.SHA256)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "its content was evicted from the store"
	} else if err != nil {
		return "", err.Error()
	}
	req := events.IntentRequest{Target: t, Actor: exec, Arguments: args, Rewind: true}
	if _, err := events.FSWriteIntent.Waterfall(ctx, r.s, req, func(context.Context) (*fsapi.WriteIntent, error) { return nil, nil }); err != nil {
		return "", err.Error()
	}
	expect := fsapi.RestoreExpect{Absent: info == nil}
	if info != nil {
		expect.Version = info.Version
	}
	v, err := rs.RestoreBytes(ctx, t, data, expect)
	if err != nil {
		return "", err.Error()
	}
	ob := events.Observation{Target: t, Kind: events.Present, Version: v, Actor: exec}
	if int64(len(data)) <= fsapi.DefaultDigestMaxBytes {
		ob.Digest = fsapi.DigestOf(string(data))
	}
	if err := events.FSObserved.Emit(ctx, r.s, ob); err != nil {
		return "", err.Error()
	}
	return "restored", ""
}

// current returns t's state now: nil when absent, else its info and, when
// it is a regular file of at most the file bound, the SHA-256 and the
// fsapi.Digest (as a string) of its bytes at info's version ("" otherwise).
func (r *recorder) current(ctx context.Context, t fsapi.Target) (*fsapi.Info, string, string, error) {
	for try := 0; try < 2; try++ {
		info, err := r.fs.Stat(ctx, t)
		if err != nil || info == nil {
			return nil, "", "", err
		}
		if info.Type != fsapi.TypeFile {
			return nil, "", "", errors.New("not a regular file now")
		}
		if info.Size > r.max {
			return info, "", "", nil
		}
		data, err := r.readAll(ctx, t)
		if err != nil {
			return nil, "", "", err
		}
		again, err := r.fs.Stat(ctx, t)
		if err == nil && again != nil && again.Version == info.Version {
			return info, sumOf(data), fsapi.DigestOf(string(data)).String(), nil
		}
	}
	return nil, "", "", errors.New("it kept changing while it was read")
}

// Text is the rewind's report as the tool and the CLI give it
// (docs/checkpoints.md "rewind").
func (rw Rewound) Text() string {
	var b strings.Builder
	n := len(rw.Restored) + len(rw.Deleted)
	if n == 0 {
		fmt.Fprintf(&b, "nothing was changed: every file is as at step %d or was left alone", rw.To)
	} else {
		fmt.Fprintf(&b, "rewound to step %d: %d restored, %d deleted, %d left alone", rw.To, len(rw.Restored), len(rw.Deleted), len(rw.Left))
		if rw.Step > 0 {
			fmt.Fprintf(&b, "; this rewind is step %d (rewind to step %d to undo it)", rw.Step, rw.Undo)
		}
	}
	for _, p := range rw.Restored {
		b.WriteString("\nrestored " + p)
	}
	for _, p := range rw.Deleted {
		b.WriteString("\ndeleted " + p)
	}
	for _, p := range rw.Unchanged {
		b.WriteString("\nunchanged " + p)
	}
	for _, l := range rw.Left {
		b.WriteString("\nleft alone " + l.Path + ": " + l.Why)
	}
	return b.String()
}
