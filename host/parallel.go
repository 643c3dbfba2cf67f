package host

import (
	"context"
	"sync"
)

// Parallel is an event descriptor for parallel dispatch: every listener
// starts at once in its own goroutine and all are awaited; failures are
// joined after all have settled (host §1.5).
type Parallel[A any] struct{ ev event }

// NewParallel returns the descriptor of the parallel event called name.
func NewParallel[A any](name string) *Parallel[A] { return &Parallel[A]{ev: event{name: name}} }

// Name returns the event name.
func (p *Parallel[A]) Name() string { return p.ev.name }

// On registers fn; ownership and options are as for [Notify.On].
func (p *Parallel[A]) On(s *Scope, fn NotifyFunc[A], opts ...ListenOption) (Disposer, error) {
	return s.h.on(s, &p.ev, fn, opts)
}

// Dispatch runs every listener concurrently with ctx and a, waits for all,
// and returns their failures (panics recovered as *PanicError) joined in
// listener order, or nil.
func (p *Parallel[A]) Dispatch(ctx context.Context, s *Scope, a A) error {
	if err := s.h.checkDispatch(ctx, p.ev.name, a); err != nil {
		return err
	}
	list := s.h.snapshot(&p.ev)
	errs := make([]error, len(list))
	var wg sync.WaitGroup
	for i, l := range list {
		if !l.claim(ctx) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = callNotify(ctx, p.ev.name, l.fn.(NotifyFunc[A]), a)
		}()
	}
	wg.Wait()
	return joinErrors(errs)
}
