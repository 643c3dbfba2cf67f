package fspolicy

import (
	"context"
	"math"
	"slices"
	"sync"
	"unique"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// record is what a conversation last saw of one target: present at a
// version, with the digest of the content seen when the tool had it whole
// ([D24]), or absent ([D4]), and when it was recorded (seq, the
// conversation's own counter). Keys and versions are interned (unique), so
// the same file seen by many conversations is stored once: a record is 32
// bytes.
type record struct {
	version unique.Handle[fsapi.Version]
	digest  fsapi.Digest
	seq     uint32
	absent  bool
}

// conversation is one owner's observations and its place in the policy's
// activity order (prev, next: least recently active first).
type conversation struct {
	id         string
	obs        map[unique.Handle[string]]record
	seq        uint32
	prev, next *conversation
}

// policy is one activation's state (contract §4 "State", conversations.md
// §2): owner (conversation ID) → target key → latest observation, bounded
// by max observations per conversation and maxTotal in all.
type policy struct {
	max, maxTotal int

	mu     sync.Mutex
	convs  map[string]*conversation
	total  int
	oldest *conversation // least recently active
	newest *conversation
}

func newPolicy(cfg Config) *policy {
	return &policy{max: cfg.MaxObservations, maxTotal: cfg.MaxObservationsTotal, convs: map[string]*conversation{}}
}

// owner returns the conversation of a, if any. A call without a
// conversation has no owner: nothing is recorded for it and it is never
// authorised.
func owner(a events.Actor) (string, bool) {
	if a == nil {
		return "", false
	}
	return a.Conversation()
}

// touch makes c the most recently active conversation; p.mu is held.
func (p *policy) touch(c *conversation) {
	if p.newest == c {
		return
	}
	p.unlink(c)
	c.prev, c.next = p.newest, nil
	if p.newest != nil {
		p.newest.next = c
	}
	p.newest = c
	if p.oldest == nil {
		p.oldest = c
	}
}

// unlink takes c out of the activity order; p.mu is held.
func (p *policy) unlink(c *conversation) {
	if c.prev != nil {
		c.prev.next = c.next
	} else if p.oldest == c {
		p.oldest = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else if p.newest == c {
		p.newest = c.prev
	}
	c.prev, c.next = nil, nil
}

// drop forgets conversation c entirely; p.mu is held.
func (p *policy) drop(c *conversation) {
	p.unlink(c)
	p.total -= len(c.obs)
	delete(p.convs, c.id)
}

func (p *policy) lookup(a events.Actor, key string) (record, bool) {
	id, ok := owner(a)
	if !ok {
		return record{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.convs[id]
	if c == nil {
		return record{}, false
	}
	p.touch(c)
	r, ok := c.obs[unique.Make(key)]
	return r, ok
}

// writeIntent decides every write but a rewind's (which it passes on to
// next, events.IntentRequest.Rewind) and never calls next: ReplaceIfVersion(v)
// when the owner saw the target present at v (with the digest of what it
// saw, [D24]), otherwise CreateIfAbsent (unseen, absent, or no owner).
// Contract §4.
func (p *policy) writeIntent(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
	if req.Rewind {
		return next(ctx)
	}
	if r, ok := p.lookup(req.Actor, req.Target.Key); ok && !r.absent {
		return &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: r.version.Value(), Digest: r.digest}, nil
	}
	return &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}, nil
}

// editIntent decides every edit but a rewind's (passed on to next) and
// never calls next: EditGuard{v} when the
// owner saw the target present at v (with the digest of what it saw,
// [D24]); FS_NOT_FOUND `cannot edit "<p>": not
// found` when it saw it absent ([D4]); FS_NOT_OBSERVED `edit requires reading
// "<p>" first` when unseen or without an owner. Contract §4.
func (p *policy) editIntent(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.EditGuard]) (*fsapi.EditGuard, error) {
	if req.Rewind {
		return next(ctx)
	}
	r, ok := p.lookup(req.Actor, req.Target.Key)
	switch {
	case ok && !r.absent:
		return &fsapi.EditGuard{Version: r.version.Value(), Digest: r.digest}, nil
	case ok:
		return nil, fsapi.ErrNotFound("edit", req.Target.DisplayPath, nil)
	}
	return nil, fsapi.ErrEditUnread(req.Target.DisplayPath)
}

// removeIntent decides every removal (a delete, a move's source) but a
// rewind's (passed on to next) and never
// calls next. A directory, a symlink and a special file go unguarded with
// no read: removing them loses no content the conversation has not seen
// (a directory must be empty to be deleted; a moved one keeps its entries).
// A file is decided as an edit: RemoveGuard{v} when the owner saw it
// present at v; FS_NOT_FOUND `cannot remove "<p>": not found` when it saw
// it absent; FS_NOT_OBSERVED `remove requires reading "<p>" first` when
// unseen or without an owner. It does no I/O: the type comes with the
// request.
func (p *policy) removeIntent(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.RemoveGuard]) (*fsapi.RemoveGuard, error) {
	if req.Rewind {
		return next(ctx)
	}
	if req.Type != fsapi.TypeFile {
		return nil, nil
	}
	r, ok := p.lookup(req.Actor, req.Target.Key)
	switch {
	case ok && !r.absent:
		return &fsapi.RemoveGuard{Version: r.version.Value()}, nil
	case ok:
		return nil, fsapi.ErrNotFound("remove", req.Target.DisplayPath, nil)
	}
	return nil, fsapi.ErrRemoveUnread(req.Target.DisplayPath)
}

// observed records the owner's latest observation of the target; the latest
// wins, even an older version arriving late. Without an owner it records
// nothing. Past the bounds it forgets the conversation's least recently
// recorded observations, or the least recently active conversation
// (conversations.md §2). It does no I/O and never blocks beyond the state
// mutex.
func (p *policy) observed(_ context.Context, o events.Observation) error {
	id, ok := owner(o.Actor)
	if !ok {
		return nil
	}
	key, version := unique.Make(o.Target.Key), unique.Make(o.Version)
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.convs[id]
	if c == nil {
		c = &conversation{id: id, obs: map[unique.Handle[string]]record{}}
		p.convs[id] = c
	}
	p.touch(c)
	if c.seq == math.MaxUint32 {
		c.renumber()
	}
	c.seq++
	n := len(c.obs)
	c.obs[key] = record{version: version, digest: o.Digest, seq: c.seq, absent: o.Kind == events.Absent}
	p.total += len(c.obs) - n
	if len(c.obs) > p.max {
		p.total -= c.forgetOldest(len(c.obs) - p.max + p.max/16)
	}
	for p.total > p.maxTotal && p.oldest != nil && p.oldest != c {
		p.drop(p.oldest)
	}
	return nil
}

// forgetOldest forgets the n least recently recorded observations of c
// (n ≥ 1), and returns how many it forgot. Forgetting a batch (a sixteenth
// of the bound beyond the excess) keeps a conversation at its bound from
// sorting on every new observation.
func (c *conversation) forgetOldest(n int) int {
	if n >= len(c.obs) {
		n = len(c.obs) - 1 // the newest stays
	}
	seqs := make([]uint32, 0, len(c.obs))
	for _, r := range c.obs {
		seqs = append(seqs, r.seq)
	}
	slices.Sort(seqs)
	cut := seqs[n-1]
	forgot := 0
	for k, r := range c.obs {
		if r.seq <= cut {
			delete(c.obs, k)
			forgot++
		}
	}
	return forgot
}

// renumber gives c's observations the sequence numbers 1..n in their
// order, so that the counter can go on.
func (c *conversation) renumber() {
	type entry struct {
		key unique.Handle[string]
		seq uint32
	}
	order := make([]entry, 0, len(c.obs))
	for k, r := range c.obs {
		order = append(order, entry{k, r.seq})
	}
	slices.SortFunc(order, func(a, b entry) int { return int(a.seq) - int(b.seq) })
	for i, e := range order {
		r := c.obs[e.key]
		r.seq = uint32(i + 1)
		c.obs[e.key] = r
	}
	c.seq = uint32(len(order))
}

// closed drops everything conversation id observed (conversation/closed):
// a long-lived server whose conversations come and go keeps no state for
// the ended ones. A later call carrying the same id starts from nothing, as
// a new conversation does.
func (p *policy) closed(_ context.Context, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.convs[id]; c != nil {
		p.drop(c)
	}
	return nil
}

// size returns how many conversations have observations and how many
// observations they hold: the size of the state, for tests.
func (p *policy) size() (conversations, observations int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.convs), p.total
}
