package fssandbox

import (
	"context"
	"sync"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// sandbox is one activation: the configured mode, the writable roots and
// the per-conversation modes (sandbox.md §4.1 as conversations.md §3
// amends it: conversation id → mode, only for conversations that switched).
type sandbox struct {
	scope         *host.Scope // to look "fs" up at each check
	mode          Mode
	roots         roots
	sessionSwitch bool

	mu    sync.Mutex
	modes map[string]Mode
}

// conversationOf returns the actor's conversation id, if it has one.
func conversationOf(a events.Actor) (string, bool) {
	if a == nil {
		return "", false
	}
	return a.Conversation()
}

// effective returns the mode of a call in conversation id (sandbox.md §3.2
// step 1): the conversation's own mode when it switched, else the
// configured one. Without sessionSwitch no conversation can have switched.
func (b *sandbox) effective(id string, hasConversation bool) Mode {
	if !hasConversation || !b.sessionSwitch {
		return b.mode
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if m, ok := b.modes[id]; ok {
		return m
	}
	return b.mode
}

// set records conversation id's own mode.
func (b *sandbox) set(id string, m Mode) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.modes[id] = m
}

// closed drops an ended conversation's mode (conversation/closed).
func (b *sandbox) closed(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.modes, id)
	return nil
}

// size returns how many conversations have a mode of their own, for tests.
func (b *sandbox) size() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.modes)
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
	id, hasConversation := conversationOf(req.Actor)
	m := b.effective(id, hasConversation)
	if m == FullAccess {
		return nil
	}
	canSwitch := b.sessionSwitch && hasConversation
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

// removeIntent guards fs/remove-intent like writeIntent, worded "remove"
// (a delete, or a move's source).
func (b *sandbox) removeIntent(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.RemoveGuard]) (*fsapi.RemoveGuard, error) {
	if err := b.check("remove", req); err != nil {
		return nil, err
	}
	return next(ctx)
}
