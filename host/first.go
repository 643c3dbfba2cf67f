package host

import (
	"context"
	"runtime/debug"
)

// First is an event descriptor for serial "bail" dispatch: listeners run one
// at a time, in order, until one reports handled (host §1.5). Unlike Cordis,
// handled is an explicit flag, so a zero result (0, "", false) can be the
// answer.
type First[A, R any] struct{ ev event }

// NewFirst returns the descriptor of the first-wins event called name.
func NewFirst[A, R any](name string) *First[A, R] { return &First[A, R]{ev: event{name: name}} }

// Name returns the event name.
func (f *First[A, R]) Name() string { return f.ev.name }

// FirstFunc is a First listener: it returns its result, whether it handled
// the dispatch, and an error that stops the dispatch.
type FirstFunc[A, R any] func(ctx context.Context, a A) (R, bool, error)

// On registers fn; ownership and options are as for [Notify.On].
func (f *First[A, R]) On(s *Scope, fn FirstFunc[A, R], opts ...ListenOption) (Disposer, error) {
	return s.h.on(s, &f.ev, fn, opts)
}

// Dispatch runs the listeners in order and returns the first handled
// result with handled true; an error (or a recovered panic) stops the
// dispatch and is returned. With no handler it returns R's zero value and
// false.
func (f *First[A, R]) Dispatch(ctx context.Context, s *Scope, a A) (R, bool, error) {
	var zero R
	if err := s.h.checkDispatch(ctx, f.ev.name, a); err != nil {
		return zero, false, err
	}
	for _, l := range s.h.snapshot(&f.ev) {
		if !l.claim(ctx) {
			continue
		}
		r, handled, err := callFirst(ctx, f.ev.name, l.fn.(FirstFunc[A, R]), a)
		if err != nil {
			return zero, false, err
		}
		if handled {
			return r, true, nil
		}
	}
	return zero, false, nil
}

func callFirst[A, R any](ctx context.Context, name string, fn FirstFunc[A, R], a A) (r R, handled bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Site: listenerSite(name), Value: v, Stack: debug.Stack()}
		}
	}()
	return fn(ctx, a)
}
