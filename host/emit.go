package host

import (
	"context"
	"runtime/debug"
)

// Notify is an event descriptor for emit (notify) dispatch: listeners run
// synchronously, in order, and every one runs even after another fails or
// panics; the failures are joined and returned to the emitter (host §3.4).
// The payload type A is checked by the compiler. Declare descriptors once, as
// package variables:
//
//	var FSObserved = host.NewNotify[Observation]("fs/observed")
type Notify[A any] struct{ ev event }

// NewNotify returns the descriptor of the emit event called name
// ("ns/action", a convention only).
func NewNotify[A any](name string) *Notify[A] { return &Notify[A]{ev: event{name: name}} }

// Name returns the event name ("ns/action").
func (n *Notify[A]) Name() string { return n.ev.name }

// NotifyFunc is a Notify listener: it receives the dispatch's ctx and the
// payload, and reports failure by returning an error.
type NotifyFunc[A any] func(ctx context.Context, a A) error

// On registers fn for the event on behalf of s's instance; the registration
// is an effect of s, removed when s ends or when the returned Disposer runs
// (which removes exactly this registration). The one option is Prepend. On
// an inactive scope On returns ErrInactive.
func (n *Notify[A]) On(s *Scope, fn NotifyFunc[A], opts ...ListenOption) (Disposer, error) {
	return s.h.on(s, &n.ev, fn, opts)
}

// Emit runs every listener of the event in s's host, in order, on a
// snapshot taken when dispatch starts (host §1.5). A listener's error or
// panic (as a *PanicError, `listener of "<event>" panicked: <value>`) does
// not stop the others; Emit returns nil, the single failure unchanged, or
// errors.Join of all failures in dispatch order. Emit is carried by EventBus
// (see bus.go); an Emit from inside a listener, with the listener's ctx, is
// dispatched directly and never deadlocks.
func (n *Notify[A]) Emit(ctx context.Context, s *Scope, a A) error {
	h := s.h
	t := h.topicOf(&n.ev)
	if t == nil {
		return nil
	}
	if len(t.list.load()) == 0 {
		return nil
	}
	if inDispatch(ctx) {
		return n.run(ctx, h.snapshot(&n.ev), a)
	}
	return h.publish(ctx, t, a, func(ctx context.Context, payload any) error {
		a, _ := payload.(A)
		return n.run(ctx, h.snapshot(&n.ev), a)
	})
}

func (n *Notify[A]) run(ctx context.Context, list []*listener, a A) error {
	var errs []error
	for _, l := range list {
		if err := callNotify(ctx, n.ev.name, l.fn.(NotifyFunc[A]), a); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}

func callNotify[A any](ctx context.Context, name string, fn NotifyFunc[A], a A) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Site: listenerSite(name), Value: v, Stack: debug.Stack()}
		}
	}()
	return fn(ctx, a)
}
