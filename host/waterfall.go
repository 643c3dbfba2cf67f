package host

import (
	"context"
	"fmt"
	"runtime/debug"
)

// Chain is an event descriptor for waterfall dispatch: a decision chain of
// nested middleware with a mandatory default continuation (host §1.5, §3.1).
// Input A and result R are checked by the compiler:
//
//	var FSWriteIntent = host.NewChain[IntentRequest, *fsapi.WriteIntent]("fs/write-intent")
type Chain[A, R any] struct{ ev event }

// NewChain returns the descriptor of the waterfall event called name.
func NewChain[A, R any](name string) *Chain[A, R] { return &Chain[A, R]{ev: event{name: name}} }

// Name returns the event name ("ns/action").
func (c *Chain[A, R]) Name() string { return c.ev.name }

// Next continues a waterfall after the current listener. It is never nil. It
// is bound to its position: each call re-runs the whole rest of the chain
// (so retry wrappers work) with the ctx it is given, so a wrapper can impose
// a deadline downstream.
type Next[R any] func(ctx context.Context) (R, error)

// ChainFunc is a waterfall listener. It receives the dispatch's ctx, the
// input (shared by all listeners; data is not piped between them) and next.
// It decides by returning without calling next, transforms by
// post-processing next's result, and rejects by returning an error, which
// propagates to the caller. A guard that only vetoes or calls next and
// returns its result unchanged is not a decider (contract §1.1).
type ChainFunc[A, R any] func(ctx context.Context, a A, next Next[R]) (R, error)

// On registers fn on the chain on behalf of s's instance; the first
// listener in dispatch order is the outermost. Options and ownership are as
// for [Notify.On].
func (c *Chain[A, R]) On(s *Scope, fn ChainFunc[A, R], opts ...ListenOption) (Disposer, error) {
	return s.h.on(s, &c.ev, fn, opts)
}

// Waterfall runs the chain in s's host on a snapshot of its listeners:
// the first listener gets next bound to the second, and so on; the last
// listener's next calls inner. With no listener it returns inner(ctx). A
// panic in a listener, or in inner, becomes a *PanicError returned like any
// error. Waterfall is dispatched by the host, not EventBus, and holds no lock
// while listeners run.
func (c *Chain[A, R]) Waterfall(ctx context.Context, s *Scope, a A, inner Next[R]) (R, error) {
	return c.step(ctx, s.h.snapshot(&c.ev), 0, a, inner)
}

func (c *Chain[A, R]) step(ctx context.Context, list []*listener, i int, a A, inner Next[R]) (R, error) {
	if i >= len(list) {
		return callInner(ctx, c.ev.name, inner)
	}
	next := func(ctx context.Context) (R, error) { return c.step(ctx, list, i+1, a, inner) }
	return callChain(ctx, c.ev.name, list[i].fn.(ChainFunc[A, R]), a, next)
}

func callChain[A, R any](ctx context.Context, name string, fn ChainFunc[A, R], a A, next Next[R]) (r R, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Site: listenerSite(name), Value: v, Stack: debug.Stack()}
		}
	}()
	return fn(ctx, a, next)
}

func callInner[R any](ctx context.Context, name string, inner Next[R]) (r R, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Site: fmt.Sprintf("default of %q", name), Value: v, Stack: debug.Stack()}
		}
	}()
	return inner(ctx)
}
