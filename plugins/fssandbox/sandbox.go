package fssandbox

import (
	"context"
	"sync"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// sandbox is one activation: the configured mode, the writable roots and
// the per-session modes (sandbox.md §4.1: session id → mode, only for
// sessions that switched).
type sandbox struct {
	scope         *host.Scope // to look "fs" up at each check
	mode          Mode
	roots         roots
	sessionSwitch bool

	mu       sync.Mutex
	sessions map[string]Mode
}

// sessionOf returns the actor's session id, if it has one.
func sessionOf(a events.Actor) (string, bool) {
	if a == nil {
		return "", false
	}
	return a.SessionID()
}

// effective returns the mode of a call in session id (sandbox.md §3.2 step
// 1): the session's own mode when it switched, else the configured one.
// Without sessionSwitch no session can have switched.
func (b *sandbox) effective(id string, hasSession bool) Mode {
	if !hasSession || !b.sessionSwitch {
		return b.mode
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if m, ok := b.sessions[id]; ok {
		return m
	}
	return b.mode
}

// set records session id's own mode.
func (b *sandbox) set(id string, m Mode) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sessions[id] = m
}

// closed drops a closed session's mode (sandbox.md §4.1).
func (b *sandbox) closed(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.sessions, id)
	return nil
}

// under reports whether t's real location is under the roots; false when
// it cannot be had (no "fs" service now, or no RealPather): fail closed
// (sandbox.md §3.3).
func (b *sandbox) under(t fsapi.Target) bool {
	fs, ok := fsapi.Key.Get(b.scope)
	if !ok {
		return false
	}
	l, ok := fsapi.RealPath(fs, t)
	return ok && b.roots.contain(l)
}

// check is the decision of sandbox.md §3.2 for op on req: nil to let the
// intent through, or the refusal of §3.4.
func (b *sandbox) check(op string, req events.IntentRequest) error {
	id, hasSession := sessionOf(req.Actor)
	m := b.effective(id, hasSession)
	if m == FullAccess {
		return nil
	}
	canSwitch := b.sessionSwitch && hasSession
	under := false
	if m == WorkspaceWrite || canSwitch {
		under = b.under(req.Target)
	}
	if m == WorkspaceWrite && under {
		return nil
	}
	return b.refusal(op, req.Target.DisplayPath, m, under, canSwitch)
}

// writeIntent guards fs/write-intent: refuse, or pass next's result on
// unchanged (a guard never decides, contract §1.1).
func (b *sandbox) writeIntent(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
	if err := b.check("write", req); err != nil {
		return nil, err
	}
	return next(ctx)
}

// editIntent guards fs/edit-intent like writeIntent.
func (b *sandbox) editIntent(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.EditGuard]) (*fsapi.EditGuard, error) {
	if err := b.check("edit", req); err != nil {
		return nil, err
	}
	return next(ctx)
}
