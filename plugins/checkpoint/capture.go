package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/linediff"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Bounds of what waits in memory for the worker.
const (
	// maxPendingBytes bounds the copied content held in memory, of calls
	// still running and of steps not yet in the store; a guard that
	// finds no room waits up to roomWait, then records the file as not
	// restorable.
	maxPendingBytes = 256 << 20
	roomWait        = 10 * time.Second
	// maxPendingCalls bounds the calls whose copies wait for their
	// observations; past it a call's files are recorded as not restorable.
	maxPendingCalls = 10000
	// pendingTimeout is how long the copies of a call that never reported
	// its mutation (it failed after its intents, or made none, as mkdir)
	// are kept before they are dropped.
	pendingTimeout = 15 * time.Minute
)

// maxLost is how many steps the store refused this process holds until
// the store takes them (Lost); the oldest are forgotten first.
const maxLost = 100

// recorder is one activation's capture: the guards, the listener and the
// worker that writes steps to the store.
type recorder struct {
	s     *host.Scope
	fs    fsapi.FileSystem
	open  fsapi.Opener
	store *store
	max   int64 // Config.MaxFileBytes

	mu        sync.Mutex
	room      *sync.Cond // signalled when pending bytes are released
	pending   map[*tools.Exec]*call
	ready     []*call
	bytes     int64             // content held by pending and ready calls
	timelines map[string]string // conversation → its incarnation's timeline
	holds     map[string]*hold  // provider key → the call about to change it
	lost      []Lost            // steps the store refused, not yet recorded in it; at most maxLost
	queued    uint64            // calls handed to the worker
	flushed   uint64            // calls the worker finished
	progress  *sync.Cond        // signalled when flushed grows
	wake      chan struct{}
	stopped   bool
}

// call is the capture of one mutating tool call.
type call struct {
	exec     *tools.Exec
	conv     string
	timeline string
	tool     string
	started  time.Time
	skip     string // why the call is not captured ("" when it is)
	changes  []*change
	held     []string  // the keys it holds (recorder.holds)
	ended    time.Time // when its last mutation was observed
	bytes    int64     // content held
	seq      uint64
	done     chan struct{} // closed when the step is in the store (or failed)
	n        int64         // the step's number, once done
	err      error
}

// change is the capture of one target of a call.
type change struct {
	t        fsapi.Target
	before   State
	data     []byte // the content before, when kept
	observed bool
	after    State // Absent, or Version
}

func newRecorder(s *host.Scope, fsys fsapi.FileSystem, open fsapi.Opener, st *store, maxFile int64) *recorder {
	r := &recorder{s: s, fs: fsys, open: open, store: st, max: maxFile,
		pending: map[*tools.Exec]*call{}, timelines: map[string]string{}, holds: map[string]*hold{}, wake: make(chan struct{}, 1)}
	r.room = sync.NewCond(&r.mu)
	r.progress = sync.NewCond(&r.mu)
	return r
}

// hold is a call's claim on one file between its copy and its mutation:
// another call of this process waits for done before it copies the file.
type hold struct {
	c    *call
	done chan struct{}
}

// guard returns the intent guard of one chain: it calls next and, when the
// chain allowed the mutation, captures the target before it and holds the
// mutation to the bytes it copied (tighten). A refused call copies
// nothing; a failed capture never fails the call (the file is recorded as
// not restorable).
func guard[R any](r *recorder) host.ChainFunc[events.IntentRequest, R] {
	return func(ctx context.Context, req events.IntentRequest, next host.Next[R]) (R, error) {
		res, err := next(ctx)
		if err != nil {
			return res, err
		}
		if c, ch := r.capture(ctx, req); ch != nil {
			var ok bool
			if res, ok = tighten(res, ch.before, ch.data); !ok {
				r.omit(c, ch, "it changed while it was copied")
			}
		}
		return res, nil
	}
}

// tighten returns the precondition res narrowed to the content copied
// before the mutation (its version, or its digest when it is at most
// fsapi.DefaultDigestMaxBytes; or its absence), so the provider, under its
// lock, refuses a mutation of bytes other than those copied: a step's
// before is always what its mutation replaced, even when another process
// changed the file between the copy and the mutation. ok is false when the
// copy does not meet res itself (the file changed after the decider saw
// it); res is then returned unchanged. A file whose content was not copied
// (too large, unreadable) leaves res unchanged.
func tighten[R any](res R, before State, data []byte) (R, bool) {
	if !before.Absent && data == nil {
		return res, true
	}
	v := fsapi.Version(before.Version)
	var digest fsapi.Digest
	if !before.Absent && int64(len(data)) <= fsapi.DefaultDigestMaxBytes {
		digest = digestOf(data)
	}
	matches := func(ver fsapi.Version, d fsapi.Digest) bool {
		return ver == v || (!d.IsZero() && d == digest)
	}
	var out any
	switch x := any(res).(type) {
	case *fsapi.WriteIntent:
		switch {
		case before.Absent && (x == nil || x.Kind == fsapi.CreateIfAbsent):
			out = &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}
		case !before.Absent && (x == nil || x.Kind == fsapi.ReplaceIfVersion && matches(x.Version, x.Digest)):
			out = &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: v, Digest: digest}
		default:
			return res, false
		}
	case *fsapi.EditGuard:
		if before.Absent || (x != nil && !matches(x.Version, x.Digest)) {
			return res, false
		}
		out = &fsapi.EditGuard{Version: v, Digest: digest}
	case *fsapi.RemoveGuard:
		if before.Absent || (x != nil && x.Version != v) {
			return res, false
		}
		out = &fsapi.RemoveGuard{Version: v}
	default:
		return res, true
	}
	return out.(R), true
}

// omit records the content before of c's change ch as not kept, for why,
// and gives back the memory it held.
func (r *recorder) omit(c *call, ch *change, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.bytes -= int64(len(ch.data))
	r.releaseLocked(int64(len(ch.data)))
	ch.before, ch.data = State{Omitted: why}, nil
}

// capture takes the copy of req's target for its call, and returns both
// (a nil change when nothing was captured).
func (r *recorder) capture(ctx context.Context, req events.IntentRequest) (*call, *change) {
	exec, ok := req.Actor.(*tools.Exec)
	if !ok || exec == nil {
		return nil, nil // outside any tool call: nothing to number it by
	}
	if req.Rewind {
		return nil, nil // a rewind records its step itself, before it restores
	}
	r.mu.Lock()
	first := r.pending[exec] == nil
	r.mu.Unlock()
	if first {
		// A call starts only once every earlier step is in the store, so
		// a crash loses at most the steps of the calls still running and
		// of the last one handed to the worker (docs/checkpoints.md). A
		// worker slower than roomWait does not hold the call longer.
		wctx, cancel := context.WithTimeout(ctx, roomWait)
		_ = r.sync(wctx)
		cancel()
	}
	c := r.callOf(ctx, exec)
	if c == nil || c.skip != "" {
		return nil, nil
	}
	if req.Type != "" && req.Type != fsapi.TypeFile {
		// A directory, a symlink or a special file removed or moved: not
		// captured, and neither is the rest of the call (a moved
		// directory's destination).
		r.mu.Lock()
		c.skip = "not a regular file"
		r.mu.Unlock()
		return nil, nil
	}
	r.hold(ctx, c, req.Target.Key)
	ch := &change{t: req.Target}
	ch.before, ch.data = r.copyOf(ctx, req.Target)
	if ch.data != nil && !r.reserve(ctx, int64(len(ch.data))) {
		ch.before, ch.data = State{Omitted: "the checkpoint queue was full"}, nil
	}
	r.mu.Lock()
	c.changes = append(c.changes, ch)
	c.bytes += int64(len(ch.data))
	r.mu.Unlock()
	return c, ch
}

// hold claims key for c until the mutation of it is observed or the call
// ends: a call of this process that is about to change the same file
// waits (up to roomWait, or ctx's end) before it copies it, so the copy
// is what the mutation replaces and the steps of one file are numbered in
// the order of its mutations. A call that holds a file already never
// waits for another (a move's two files), so no two calls wait on each
// other; tighten keeps its copy exact.
func (r *recorder) hold(ctx context.Context, c *call, key string) {
	timer := time.NewTimer(roomWait)
	defer timer.Stop()
	for {
		r.mu.Lock()
		h := r.holds[key]
		if h == nil {
			r.holds[key] = &hold{c: c, done: make(chan struct{})}
			c.held = append(c.held, key)
			r.mu.Unlock()
			return
		}
		if h.c == c || len(c.held) > 0 {
			r.mu.Unlock()
			return
		}
		done := h.done
		r.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// releaseLockedKey ends c's hold of key, if it has it. r.mu is held.
func (r *recorder) releaseLockedKey(c *call, key string) {
	if h := r.holds[key]; h != nil && h.c == c {
		delete(r.holds, key)
		close(h.done)
	}
}

// releaseLockedAll ends every hold of c. r.mu is held.
func (r *recorder) releaseLockedAll(c *call) {
	for _, key := range c.held {
		r.releaseLockedKey(c, key)
	}
	c.held = nil
}

// callOf returns the pending call of exec, starting it (its holds end
// with ctx, the call's context); nil when too many calls are pending.
func (r *recorder) callOf(ctx context.Context, exec *tools.Exec) *call {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.pending[exec]; c != nil {
		return c
	}
	if len(r.pending) >= maxPendingCalls {
		return nil
	}
	conv, _ := exec.Conversation()
	c := &call{exec: exec, conv: conv, timeline: r.timelineLocked(conv), tool: exec.ToolName(), started: time.Now(), done: make(chan struct{})}
	r.pending[exec] = c
	context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.releaseLockedAll(c)
		r.mu.Unlock()
	})
	return c
}

// reserve waits, up to roomWait or ctx's end, until n more bytes of
// content fit in memory, and takes them.
func (r *recorder) reserve(ctx context.Context, n int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bytes+n <= maxPendingBytes || r.bytes == 0 {
		r.bytes += n
		return true
	}
	deadline := time.Now().Add(roomWait)
	stop := context.AfterFunc(ctx, func() { r.mu.Lock(); r.room.Broadcast(); r.mu.Unlock() })
	defer stop()
	t := time.AfterFunc(roomWait, func() { r.mu.Lock(); r.room.Broadcast(); r.mu.Unlock() })
	defer t.Stop()
	for r.bytes+n > maxPendingBytes && r.bytes > 0 {
		if ctx.Err() != nil || !time.Now().Before(deadline) || r.stopped {
			return false
		}
		r.room.Wait()
	}
	r.bytes += n
	return true
}

// releaseLocked gives back n bytes of content. r.mu is held.
func (r *recorder) releaseLocked(n int64) {
	r.bytes -= n
	r.room.Broadcast()
}

// copyOf reads t's current content whole, when it is a regular file of at
// most the file bound whose version does not change while it is read. It
// returns the state and the content (nil unless kept).
func (r *recorder) copyOf(ctx context.Context, t fsapi.Target) (State, []byte) {
	for try := 0; try < 2; try++ {
		info, data, err := r.readStable(ctx, t, "")
		switch {
		case errors.Is(err, errMoved):
			continue
		case err != nil:
			return State{Omitted: "it could not be read: " + err.Error()}, nil
		case info == nil:
			return State{Absent: true}, nil
		case info.Type != fsapi.TypeFile:
			return State{Omitted: "not a regular file"}, nil
		case info.Size > r.max:
			return State{Size: info.Size, Omitted: fmt.Sprintf("larger than %d bytes", r.max)}, nil
		}
		return State{Size: int64(len(data)), Version: string(info.Version), Mode: r.modeOf(ctx, t)}, data
	}
	return State{Omitted: "it changed while it was copied"}, nil
}

// errMoved is readStable's error for a file whose version was not the
// one expected, or changed while it was read.
var errMoved = errors.New("it changed while it was read")

// readStable returns t's info and, when it is a regular file of at most
// the file bound, its bytes at that version: nil info when t is absent or
// cannot be examined (with the error); nil bytes and no error for another
// type or a larger file; errMoved when its version is not want (when
// set, checked before reading) or changed during the read; a read error
// with info.
func (r *recorder) readStable(ctx context.Context, t fsapi.Target, want fsapi.Version) (*fsapi.Info, []byte, error) {
	info, err := r.fs.Stat(ctx, t)
	if err != nil || info == nil {
		return nil, nil, err
	}
	if want != "" && info.Version != want {
		return info, nil, errMoved
	}
	if info.Type != fsapi.TypeFile || info.Size > r.max {
		return info, nil, nil
	}
	data, err := r.readAll(ctx, t, info.Size)
	if err != nil {
		return info, nil, err
	}
	if again, err := r.fs.Stat(ctx, t); err != nil || again == nil || again.Version != info.Version {
		return info, nil, errMoved
	}
	return info, data, nil
}

// modeOf returns the permission bits of t's file, 0 when the provider
// cannot say (no fsapi.Lstater) or it cannot be examined.
func (r *recorder) modeOf(ctx context.Context, t fsapi.Target) fs.FileMode {
	l, ok := r.fs.(fsapi.Lstater)
	if !ok {
		return 0
	}
	info, err := l.Lstat(ctx, t.Key, fsapi.ResolveOptions{})
	if err != nil || info == nil || info.Type != fsapi.TypeFile {
		return 0
	}
	return info.Mode.Perm()
}

// readAll reads t's raw bytes, at most the file bound; size is what a
// Stat just said, so the content is read into one buffer of that size.
func (r *recorder) readAll(ctx context.Context, t fsapi.Target, size int64) ([]byte, error) {
	f, err := r.open.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	b.Grow(int(min(max(size, 0), r.max)) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(f, r.max+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > r.max {
		return nil, fmt.Errorf("larger than %d bytes", r.max)
	}
	return b.Bytes(), nil
}

// observed records the version a mutation left on a captured target, and
// hands the call to the worker once every target it captured has one. It
// does no I/O.
func (r *recorder) observed(_ context.Context, ob events.Observation) error {
	exec, ok := ob.Actor.(*tools.Exec)
	if !ok {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.pending[exec]
	if c == nil {
		return nil
	}
	all, matched := true, false
	for _, ch := range c.changes {
		if !matched && !ch.observed && ch.t.Key == ob.Target.Key {
			matched, ch.observed = true, true
			r.releaseLockedKey(c, ch.t.Key)
			if ob.Kind == events.Absent {
				ch.after = State{Absent: true}
			} else {
				ch.after = State{Version: string(ob.Version), Digest: ob.Digest.String()}
			}
		}
		all = all && ch.observed
	}
	if all && len(c.changes) > 0 {
		r.queueLocked(c)
	}
	return nil
}

// queueLocked hands c to the worker. r.mu is held.
func (r *recorder) queueLocked(c *call) {
	delete(r.pending, c.exec)
	r.releaseLockedAll(c)
	c.ended = time.Now()
	r.queued++
	c.seq = r.queued
	r.ready = append(r.ready, c)
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// timelineLocked returns conv's current timeline, starting one when it
// has none. r.mu is held.
func (r *recorder) timelineLocked(conv string) string {
	tl := r.timelines[conv]
	if tl == "" {
		tl = uuid.NewString()
		r.timelines[conv] = tl
	}
	return tl
}

// closed starts a new timeline for a conversation that starts anew.
func (r *recorder) closed(_ context.Context, conv string) error {
	r.mu.Lock()
	delete(r.timelines, conv)
	r.mu.Unlock()
	return nil
}

// timeline returns the timeline conv's calls are recorded on now, "" when
// it has made no step in this process.
func (r *recorder) timeline(conv string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.timelines[conv]
}

// sync waits until every call handed to the worker before it is in the
// store, or ctx ends.
func (r *recorder) sync(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	want := r.queued
	stop := context.AfterFunc(ctx, func() { r.mu.Lock(); r.progress.Broadcast(); r.mu.Unlock() })
	defer stop()
	for r.flushed < want {
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.stopped {
			return errors.New("checkpoint: the plugin stopped")
		}
		r.progress.Wait()
	}
	return nil
}

// run is the worker: it writes the calls handed to it to the store, in
// order, drops the copies of calls that never reported their mutation,
// and drains what is queued when the plugin stops, and the steps the
// store refused (Lost) with it.
func (r *recorder) run(ctx context.Context) {
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for {
		select {
		case <-r.wake:
		case <-tick.C:
			r.expire()
			continue
		case <-ctx.Done():
			r.flushReady()
			r.mu.Lock()
			r.recordLostLocked() // the last chance to tell the other processes
			r.stopped = true
			r.progress.Broadcast()
			r.room.Broadcast()
			r.mu.Unlock()
			return
		}
		r.flushReady()
	}
}

// flushReady writes every queued call to the store.
func (r *recorder) flushReady() {
	for {
		r.mu.Lock()
		if len(r.ready) == 0 {
			r.mu.Unlock()
			return
		}
		c := r.ready[0]
		r.ready = r.ready[1:]
		r.mu.Unlock()
		c.err = r.flush(c)
		r.mu.Lock()
		if c.err != nil {
			r.s.Logger().Warn("checkpoint: a step was not stored", "tool", c.tool, "error", c.err)
			l := Lost{Time: c.ended.UTC(), Conversation: c.conv, Timeline: c.timeline, Tool: c.tool, Why: c.err.Error()}
			for _, ch := range c.changes {
				l.Paths, l.Keys = append(l.Paths, ch.t.DisplayPath), append(l.Keys, ch.t.Key)
			}
			if len(r.lost) == maxLost {
				r.lost = r.lost[1:]
			}
			r.lost = append(r.lost, l)
		} else {
			r.recordLostLocked()
		}
		r.releaseLocked(c.bytes)
		r.flushed = max(r.flushed, c.seq)
		r.progress.Broadcast()
		r.mu.Unlock()
		close(c.done)
	}
}

// recordLostLocked writes to the store the steps it refused, now that it
// took a step again, so every process sees them; those it still refuses
// stay in memory. r.mu is held; it is released around the writes.
func (r *recorder) recordLostLocked() {
	for len(r.lost) > 0 {
		l := r.lost[0]
		r.mu.Unlock()
		err := r.store.recordLost(l)
		r.mu.Lock()
		if err != nil {
			return
		}
		r.lost = r.lost[1:] // only the worker changes r.lost
	}
}

// lostOf returns the steps the store refused of sc, oldest first: those
// it recorded (stored, from a snapshot) and those this process still
// holds.
func (r *recorder) lostOf(sc scope, stored []Lost) []Lost {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Lost
	for _, l := range append(slices.Clone(stored), r.lost...) {
		if sc.hasLost(l) {
			out = append(out, l)
		}
	}
	return out
}

// expire drops the calls pending longer than pendingTimeout.
func (r *recorder) expire() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for exec, c := range r.pending {
		if time.Since(c.started) > pendingTimeout {
			delete(r.pending, exec)
			r.releaseLockedAll(c)
			r.releaseLocked(c.bytes)
		}
	}
}

// flush writes c as one step: the content before each change, the content
// after it when the file still holds the version the mutation left, and
// the lines added and removed.
func (r *recorder) flush(c *call) error {
	ctx := context.Background()
	s := Step{Time: c.ended.UTC(), Conversation: c.conv, Timeline: c.timeline, Tool: c.tool}
	blobs := map[string][]byte{}
	for _, ch := range c.changes {
		cs := Change{Path: ch.t.DisplayPath, Key: ch.t.Key, Before: ch.before, After: ch.after}
		if ch.data != nil {
			cs.Before.SHA256 = sumOf(ch.data)
			blobs[cs.Before.SHA256] = ch.data
		}
		var after []byte
		if !ch.after.Absent {
			if after = r.laterCopy(ch); after != nil {
				cs.After.Size = int64(len(after))
			} else {
				after = r.afterOf(ctx, ch.t, &cs.After)
			}
			if after != nil {
				cs.After.SHA256 = sumOf(after)
				blobs[cs.After.SHA256] = after
			}
		}
		if (ch.data != nil || cs.Before.Absent) && (after != nil || cs.After.Absent) {
			cs.Added, cs.Removed = linediff.Count(string(ch.data), string(after))
			cs.Counted = true
		}
		s.Changes = append(s.Changes, cs)
	}
	if err := r.store.commit(&s, blobs); err != nil {
		return err
	}
	c.n = s.N
	return nil
}

// laterCopy returns the content a later call copied of ch's file at the
// version ch's mutation left (so the file changed again before the worker
// came to ch), nil when there is none.
func (r *recorder) laterCopy(ch *change) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	match := func(c *call) []byte {
		for _, later := range c.changes {
			if later != ch && later.t.Key == ch.t.Key && later.data != nil && later.before.Version == ch.after.Version {
				return later.data
			}
		}
		return nil
	}
	for _, c := range r.ready {
		if data := match(c); data != nil {
			return data
		}
	}
	for _, c := range r.pending {
		if data := match(c); data != nil {
			return data
		}
	}
	return nil
}

// afterOf reads t's content when it is still at the version st holds and
// at most the file bound; otherwise it notes in st why it was not kept.
func (r *recorder) afterOf(ctx context.Context, t fsapi.Target, st *State) []byte {
	info, data, err := r.readStable(ctx, t, fsapi.Version(st.Version))
	switch {
	case info == nil || errors.Is(err, errMoved) || info.Type != fsapi.TypeFile:
		st.Omitted = "it changed again before it was copied"
		return nil
	case err != nil:
		st.Omitted = "it could not be read: " + err.Error()
		return nil
	case info.Size > r.max:
		st.Size, st.Omitted = info.Size, fmt.Sprintf("larger than %d bytes", r.max)
		return nil
	}
	st.Size = int64(len(data))
	return data
}
