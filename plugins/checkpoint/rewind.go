package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/internal/linediff"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Rewound is the outcome of a rewind to step To: the files restored to
// their bytes at To, those deleted (created after To), those already as
// they were, and those left alone, each with why; Step is the rewind's own
// step (0 when it changed nothing), which a rewind to Undo, the step of
// the same scope before it, undoes.
//
// Notes holds, by path, why a restored or deleted file was put back to
// the bytes before the first later step rather than those the step before
// it left: it changed in between outside the recorded steps (another
// program, or a call whose step a crash lost).
type Rewound struct {
	To        int64
	Step      int64
	Undo      int64 // the step a rewind to undoes this one (0: the start)
	Restored  []string
	Deleted   []string
	Unchanged []string
	Left      []LeftAlone
	Notes     map[string]string
}

// LeftAlone is a file a rewind did not touch, and why (`changed since step
// 7 by someone else`, `not restorable: larger than 33554432 bytes`, …).
type LeftAlone struct {
	Path string
	Why  string
}

// scope says which steps a rewind or a listing takes: every step (All),
// or a timeline's (a conversation's incarnation; "" for a conversation
// with no step in this process, which has none).
type scope struct {
	All      bool
	Timeline string
}

func (sc scope) has(s Step) bool { return sc.All || sc.Timeline != "" && s.Timeline == sc.Timeline }

func (sc scope) hasLost(l Lost) bool {
	return sc.All || sc.Timeline != "" && l.Timeline == sc.Timeline
}

// target is one file a rewind puts back: the bytes it had before the
// first later step changed it, and what the last later step left (or,
// when that step is a rewind a crash cut short, what it found).
type target struct {
	key, path   string
	want        State // the file at the step rewound to
	last        State // what the last later step left
	lastBefore  State // what the last later step found, when it is Pending
	lastStep    int64
	lastPending bool
	lost        string // why a later change of it was not stored ("" when none was lost)
	lostOnly    bool   // a lost step changed it after the step, before any stored one
	disorder    string // why its steps past the step are not in the order of its changes
	firstStep   int64  // the first step past the step that changed it
	firstTime   time.Time
	gapAfter    int64 // the step before firstStep whose bytes after firstStep did not find (0: none)
}

// follows reports whether a step's bytes before (next) are what the
// change prev left, or, for a rewind a crash cut short (pending), what it
// found; a state that names neither version nor content nor absence
// cannot be told apart and counts as following.
func follows(prev Change, pending bool, next State) bool {
	same := func(a, b State) bool {
		switch {
		case a.Absent || b.Absent:
			return a.Absent && b.Absent
		case a.Version != "" && a.Version == b.Version, a.SHA256 != "" && a.SHA256 == b.SHA256:
			return true
		}
		return a.Version == "" && a.SHA256 == "" || b.Version == "" && b.SHA256 == ""
	}
	return same(prev.After, next) || pending && same(prev.Before, next)
}

// action is a file a rewind changes: its target as it is now (info nil
// when absent; sum and digest of its bytes) and the lines the rewind adds
// and removes.
type action struct {
	tg             *target
	t              fsapi.Target
	info           *fsapi.Info
	sum, digest    string
	data           []byte // its bytes now, when the store lacks them
	added, removed int
	counted        bool
}

// rewind restores every file that a step of sc after step to changed to
// its state at to (only the files of paths, when it is not nil: provider
// keys, a directory's standing for the files under it, with the spelling
// to report), through the intent guards (marked
// Rewind, so no decider decides), as exec's call. A file whose current
// bytes are not what the last of those steps left is left alone, as is a
// file whose content at to was not kept or was evicted. The rewind's own
// step is stored, Pending, before the first file is restored, and
// completed after the last, so a crash in between leaves a step that a
// later rewind still undoes or finishes. Errors: `step <N> does not
// exist`, `step <N> belongs to another conversation`, `nothing to rewind:
// … has no step after step <N>`, a store failure (nothing restored), ctx's
// end.
func (r *recorder) rewind(ctx context.Context, exec *tools.Exec, args map[string]any, sc scope, to int64, paths *pathSet) (Rewound, error) {
	out := Rewound{To: to}
	if err := r.sync(ctx); err != nil {
		return out, err
	}
	steps, stored, err := r.store.snapshot()
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
	prev := map[string]*Step{} // key → the last step so far that changed it, of any scope
	prevChange := map[string]Change{}
	for i := range steps {
		s := &steps[i]
		for _, c := range s.Changes {
			p, pc := prev[c.Key], prevChange[c.Key]
			prev[c.Key], prevChange[c.Key] = s, c
			if s.N <= to || !sc.has(*s) {
				continue
			}
			tg := byKey[c.Key]
			if tg == nil {
				tg = &target{key: c.Key, want: c.Before, firstStep: s.N, firstTime: s.Time}
				if p != nil && !follows(pc, p.Pending, c.Before) {
					tg.gapAfter = p.N
				}
				byKey[c.Key] = tg
				targets = append(targets, tg)
			}
			tg.path, tg.last, tg.lastBefore, tg.lastStep, tg.lastPending = c.Path, c.After, c.Before, s.N, s.Pending
		}
	}
	// Steps are numbered as they reach the store; two processes changing
	// one file can reach it in the other order. A change whose bytes
	// before are what a later-numbered change left came right after it:
	// a file with such a pair across step to, or at the first step past
	// it, is left alone, since its state at step to is not known.
	leftBy := map[string]map[fsapi.Version]int64{} // key → version → the step that left it
	for _, s := range steps {
		for _, c := range s.Changes {
			if c.After.Version != "" {
				if leftBy[c.Key] == nil {
					leftBy[c.Key] = map[fsapi.Version]int64{}
				}
				leftBy[c.Key][fsapi.Version(c.After.Version)] = s.N
			}
		}
	}
	for _, s := range steps {
		for _, c := range s.Changes {
			tg := byKey[c.Key]
			if tg == nil || tg.disorder != "" || c.Before.Version == "" {
				continue
			}
			// The pair matters when it straddles the step (s.N ≤ to < j)
			// or holds the first step past it, whose bytes before are put
			// back; a swap further on leaves the state at the step known.
			if j := leftBy[c.Key][fsapi.Version(c.Before.Version)]; j > s.N && j > to && (s.N <= to || s.N == tg.firstStep) {
				tg.disorder = fmt.Sprintf("its steps %d and %d are not in the order of its changes (two servers changed it)", s.N, j)
			}
		}
	}
	var since time.Time // when step to ended (zero for 0)
	if i := indexOf(steps, to); i >= 0 {
		since = steps[i].Time
	}
	for _, l := range r.lostOf(sc, stored) {
		if l.Time.Before(since) {
			continue
		}
		for i, k := range l.Keys {
			tg := byKey[k]
			switch {
			case tg == nil:
				// Changed after the step only by calls whose steps were
				// not stored: listed, never touched.
				tg = &target{key: k, path: l.Paths[i], lostOnly: true}
				byKey[k] = tg
				targets = append(targets, tg)
			case l.Time.Before(tg.firstTime):
				// Before the first stored step after it: what that step
				// found is the unstored call's, not the file at step to.
				tg.lostOnly = true
			}
			tg.lost = l.Why
		}
	}
	if len(targets) == 0 {
		who := "this conversation"
		if sc.All {
			who = "the store"
		}
		return out, fmt.Errorf("nothing to rewind: %s has no step after step %d", who, to)
	}
	if paths != nil {
		kept, matched := targets[:0], map[string]bool{}
		for _, tg := range targets {
			for key := range paths.keys {
				if tg.key == key || strings.HasPrefix(tg.key, key+"/") {
					kept = append(kept, tg)
					matched[key] = true
					break
				}
			}
		}
		targets = kept
		out.Left = append(out.Left, paths.bad...)
		for key, p := range paths.keys {
			if !matched[key] {
				out.Left = append(out.Left, LeftAlone{p, fmt.Sprintf("not changed after step %d", to)})
			}
		}
		slices.SortFunc(out.Left, func(a, b LeftAlone) int { return strings.Compare(a.Path, b.Path) })
	}
	var acts []*action
	for _, tg := range targets {
		a, why := r.plan(ctx, tg)
		switch {
		case a != nil:
			acts = append(acts, a)
		case why == "":
			out.Unchanged = append(out.Unchanged, tg.path)
		default:
			out.Left = append(out.Left, LeftAlone{tg.path, why})
		}
	}
	if len(acts) > 0 {
		n, err := r.begin(exec, acts)
		if err != nil {
			return out, err
		}
		var left []string
		for _, a := range acts {
			done, why := "", "the rewind was cancelled"
			if ctx.Err() == nil {
				done, why = r.apply(ctx, exec, args, a)
			}
			if done != "" && a.tg.gapAfter > 0 {
				if out.Notes == nil {
					out.Notes = map[string]string{}
				}
				out.Notes[a.tg.path] = fmt.Sprintf("as before step %d: it changed after step %d outside the recorded steps", a.tg.firstStep, a.tg.gapAfter)
			}
			switch done {
			case "restored":
				out.Restored = append(out.Restored, a.tg.path)
			case "deleted":
				out.Deleted = append(out.Deleted, a.tg.path)
			default:
				out.Left = append(out.Left, LeftAlone{a.tg.path, why})
				left = append(left, a.tg.key)
			}
		}
		if err := r.store.complete(n, left); err != nil {
			r.s.Logger().Warn("checkpoint: a rewind's step was not completed", "step", n, "error", err)
		}
		if len(left) < len(acts) {
			out.Step = n
		}
	}
	for _, s := range steps {
		if sc.has(s) && (out.Step == 0 || s.N < out.Step) {
			out.Undo = s.N
		}
	}
	return out, ctx.Err()
}

// begin stores the Pending step of a rewind that will carry out acts, as
// exec's call, and returns its number.
func (r *recorder) begin(exec *tools.Exec, acts []*action) (int64, error) {
	conv, _ := exec.Conversation()
	r.mu.Lock()
	tl := r.timelineLocked(conv)
	r.mu.Unlock()
	s := Step{Time: time.Now().UTC(), Conversation: conv, Timeline: tl, Tool: exec.ToolName(), Pending: true}
	blobs := map[string][]byte{}
	for _, a := range acts {
		c := Change{Path: a.tg.path, Key: a.tg.key, After: a.tg.want, Added: a.added, Removed: a.removed, Counted: a.counted}
		c.After.Version, c.After.Digest = "", ""
		switch {
		case a.info == nil:
			c.Before = State{Absent: true}
		default:
			c.Before = State{SHA256: a.sum, Size: a.info.Size, Version: string(a.info.Version), Digest: a.digest, Mode: r.modeOf(context.Background(), a.t)}
			if a.data != nil {
				blobs[a.sum] = a.data
			}
		}
		s.Changes = append(s.Changes, c)
	}
	if err := r.store.commit(&s, blobs); err != nil {
		return 0, err
	}
	return s.N, nil
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

// plan decides what a rewind does to tg: the action that puts it back, or
// nil and why it is left alone ("" when it is already as at the step).
func (r *recorder) plan(ctx context.Context, tg *target) (*action, string) {
	if tg.lostOnly {
		return nil, "changed by a call whose step was not stored (" + tg.lost + ")"
	}
	if tg.disorder != "" {
		return nil, tg.disorder
	}
	if !tg.want.kept() {
		return nil, "not restorable: " + tg.want.Omitted
	}
	if tg.want.SHA256 != "" && !r.store.has(tg.want.SHA256) {
		return nil, "its content was evicted from the store"
	}
	t, err := r.fs.Resolve(ctx, tg.path, fsapi.ResolveOptions{})
	if err != nil {
		return nil, err.Error()
	}
	if t.Key != tg.key {
		return nil, "its path names another file now"
	}
	info, data, err := r.current(ctx, t)
	if err != nil {
		return nil, err.Error()
	}
	a := &action{tg: tg, t: t, info: info}
	if data != nil {
		a.sum, a.digest = sumOf(data), digestOf(data).String()
	}
	// A file already as it was at the step (put back by someone else, or
	// by a rewind a crash cut short) needs nothing, whoever changed it.
	if tg.want.Absent && info == nil || !tg.want.Absent && info != nil && a.sum == tg.want.SHA256 {
		return nil, ""
	}
	if !a.holds(tg.last) && !(tg.lastPending && a.holds(tg.lastBefore)) {
		if tg.lost != "" {
			return nil, fmt.Sprintf("changed since step %d by a call whose step was not stored (%s)", tg.lastStep, tg.lost)
		}
		return nil, fmt.Sprintf("changed since step %d by someone else", tg.lastStep)
	}
	if info != nil && data == nil {
		return nil, fmt.Sprintf("its bytes now are larger than %d bytes, so the rewind could not be undone", r.max)
	}
	if data != nil && !r.store.has(a.sum) {
		a.data = data // the rewind's step keeps them, so it can be undone
	}
	if want, err := r.wanted(tg); err == nil {
		a.added, a.removed = linediff.Count(string(data), string(want))
		a.counted = true
	}
	return a, ""
}

// holds reports whether the file as a found it is in state st: absent,
// at its version, or with its bytes (by SHA-256 or digest).
func (a *action) holds(st State) bool {
	if st.Absent || a.info == nil {
		return st.Absent && a.info == nil
	}
	return string(a.info.Version) == st.Version && st.Version != "" ||
		st.SHA256 != "" && a.sum == st.SHA256 || st.Digest != "" && a.digest == st.Digest
}

// wanted returns the bytes tg is put back to (nil for an absence).
func (r *recorder) wanted(tg *target) ([]byte, error) {
	if tg.want.Absent {
		return nil, nil
	}
	return r.store.readBlob(tg.want.SHA256)
}

// apply carries out a, through the intent guards; it returns "restored"
// or "deleted", or "" and why the file was left alone.
func (r *recorder) apply(ctx context.Context, exec *tools.Exec, args map[string]any, a *action) (string, string) {
	t, info := a.t, a.info
	if a.tg.want.Absent {
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
	data, err := r.store.readBlob(a.tg.want.SHA256)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "its content was evicted from the store"
	} else if err != nil {
		return "", err.Error()
	}
	req := events.IntentRequest{Target: t, Actor: exec, Arguments: args, Rewind: true}
	if _, err := events.FSWriteIntent.Waterfall(ctx, r.s, req, func(context.Context) (*fsapi.WriteIntent, error) { return nil, nil }); err != nil {
		return "", err.Error()
	}
	expect := fsapi.RestoreExpect{Absent: info == nil, Mode: a.tg.want.Mode}
	if info != nil {
		expect.Version = info.Version
	}
	v, err := rs.RestoreBytes(ctx, t, data, expect)
	if err != nil {
		return "", err.Error()
	}
	ob := events.Observation{Target: t, Kind: events.Present, Version: v, Actor: exec}
	if int64(len(data)) <= fsapi.DefaultDigestMaxBytes {
		ob.Digest = digestOf(data)
	}
	if err := events.FSObserved.Emit(ctx, r.s, ob); err != nil {
		return "", err.Error()
	}
	return "restored", ""
}

// current returns t's state now: nil when absent, else its info and,
// when it is a regular file of at most the file bound, its bytes at
// info's version (nil otherwise).
func (r *recorder) current(ctx context.Context, t fsapi.Target) (*fsapi.Info, []byte, error) {
	for try := 0; try < 2; try++ {
		info, data, err := r.readStable(ctx, t, "")
		switch {
		case errors.Is(err, errMoved):
			continue
		case err != nil:
			return nil, nil, err
		case info == nil:
			return nil, nil, nil
		case info.Type != fsapi.TypeFile:
			return nil, nil, errors.New("not a regular file now")
		}
		return info, data, nil
	}
	return nil, nil, errors.New("it kept changing while it was read")
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
	note := func(p string) string {
		if n := rw.Notes[p]; n != "" {
			return " (" + n + ")"
		}
		return ""
	}
	for _, p := range rw.Restored {
		b.WriteString("\nrestored " + p + note(p))
	}
	for _, p := range rw.Deleted {
		b.WriteString("\ndeleted " + p + note(p))
	}
	for _, p := range rw.Unchanged {
		b.WriteString("\nunchanged " + p)
	}
	for _, l := range rw.Left {
		b.WriteString("\nleft alone " + l.Path + ": " + l.Why)
	}
	return b.String()
}
