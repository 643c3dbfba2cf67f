package fspolicy

import (
	"context"
	"sync"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// observation is what a session last saw of one target: present at a
// version, or absent ([D4]).
type observation struct {
	kind    events.ObservationKind
	version fsapi.Version
}

// policy is one activation's state: owner (session ID) → target key →
// latest observation (contract §4 "State").
type policy struct {
	mu  sync.Mutex
	obs map[string]map[string]observation
}

func newPolicy() *policy { return &policy{obs: map[string]map[string]observation{}} }

// owner returns the session identity of a, if any. A call without a session
// has no owner: nothing is recorded for it and it is never authorised.
func owner(a events.Actor) (string, bool) {
	if a == nil {
		return "", false
	}
	return a.SessionID()
}

func (p *policy) lookup(a events.Actor, key string) (observation, bool) {
	id, ok := owner(a)
	if !ok {
		return observation{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	o, ok := p.obs[id][key]
	return o, ok
}

// writeIntent decides every write and never calls next: ReplaceIfVersion(v)
// when the owner saw the target present at v, otherwise CreateIfAbsent
// (unseen, absent, or no owner). Contract §4.
func (p *policy) writeIntent(_ context.Context, req events.IntentRequest, _ host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
	if o, ok := p.lookup(req.Actor, req.Target.Key); ok && o.kind == events.Present {
		return &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: o.version}, nil
	}
	return &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}, nil
}

// editIntent decides every edit and never calls next: EditGuard{v} when the
// owner saw the target present at v; FS_NOT_FOUND `cannot edit "<p>": not
// found` when it saw it absent ([D4]); FS_NOT_OBSERVED `edit requires reading
// "<p>" first` when unseen or without an owner. Contract §4.
func (p *policy) editIntent(_ context.Context, req events.IntentRequest, _ host.Next[*fsapi.EditGuard]) (*fsapi.EditGuard, error) {
	o, ok := p.lookup(req.Actor, req.Target.Key)
	switch {
	case ok && o.kind == events.Present:
		return &fsapi.EditGuard{Version: o.version}, nil
	case ok && o.kind == events.Absent:
		return nil, fsapi.ErrNotFound("edit", req.Target.DisplayPath, nil)
	}
	return nil, fsapi.ErrEditUnread(req.Target.DisplayPath)
}

// observed records the owner's latest observation of the target; the latest
// wins, even an older version arriving late. Without an owner it records
// nothing. It does no I/O and never blocks beyond the state mutex.
func (p *policy) observed(_ context.Context, o events.Observation) error {
	id, ok := owner(o.Actor)
	if !ok {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.obs[id]
	if m == nil {
		m = map[string]observation{}
		p.obs[id] = m
	}
	m[o.Target.Key] = observation{kind: o.Kind, version: o.Version}
	return nil
}

// closed drops everything the session id observed (session/closed, issue
// 12): a long-lived server that opens and closes many sessions keeps no
// state for the closed ones. A later call carrying the same id starts from
// nothing, as a new session does.
func (p *policy) closed(_ context.Context, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.obs, id)
	return nil
}

// sessions returns how many sessions have observations: the size of the
// state, for tests.
func (p *policy) sessions() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.obs)
}
