package protectedpaths

import (
	"context"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// guard is one activation: the fs service (to ask real locations) and the
// compiled rules, in configured order.
type guard struct {
	fs    fsapi.FileSystem
	rules []rule
}

// check returns an *Error naming the first rule that matches t's display
// path or real location, or nil.
func (g *guard) check(op string, t fsapi.Target) error {
	real, _ := fsapi.RealPath(g.fs, t)
	for _, r := range g.rules {
		if r.match(t.DisplayPath, real) {
			return &Error{Op: op, Path: t.DisplayPath, Rule: r.text}
		}
	}
	return nil
}

// writeIntent vetoes a write to a protected target and otherwise returns
// next's decision unchanged: a guard, not a decider (contract §1.1).
func (g *guard) writeIntent(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
	if err := g.check("write", req.Target); err != nil {
		return nil, err
	}
	return next(ctx)
}

// editIntent vetoes an edit of a protected target and otherwise returns
// next's decision unchanged.
func (g *guard) editIntent(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.EditGuard]) (*fsapi.EditGuard, error) {
	if err := g.check("edit", req.Target); err != nil {
		return nil, err
	}
	return next(ctx)
}

// removeIntent vetoes the removal of a protected target (a delete, or a
// move's source) and otherwise returns next's decision unchanged.
func (g *guard) removeIntent(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.RemoveGuard]) (*fsapi.RemoveGuard, error) {
	if err := g.check("remove", req.Target); err != nil {
		return nil, err
	}
	return next(ctx)
}
