package host

import (
	"context"
	"fmt"
	"sync"
)

// Disposer undoes one registration. It is idempotent: the first call runs
// the teardown, later calls return nil. ctx carries the shutdown deadline.
type Disposer func(ctx context.Context) error

// effect is one registration owned by a scope (host §1.3).
type effect struct {
	s     *Scope
	label string
	fn    Disposer
	once  sync.Once
	// inline marks a host-owned teardown that runs no plugin code outside
	// a timeout of its own: a listener's removal (a lock and a list swap),
	// a child instance's disposal and a service's withdrawal (each disposer
	// they run has its own timeout). It runs on the calling goroutine with
	// the caller's ctx. Every other effect is plugin code and runs through
	// callDisposer.
	inline bool
}

// run tears the effect down once: with panic containment and, for plugin
// code, the host's dispose timeout. It does not touch the scope's effect
// list.
func (e *effect) run(ctx context.Context) error {
	var err error
	e.once.Do(func() {
		e.s.h.effectCount.Add(-1)
		if e.inline {
			err = Protect(fmt.Sprintf("disposer %q", e.label), func() error { return e.fn(ctx) })
			return
		}
		err = e.s.h.callDisposer(ctx, e.label, e.fn)
	})
	return err
}

// dispose is the Disposer handed to callers: it removes the effect from its
// scope, then runs it.
func (e *effect) dispose(ctx context.Context) error {
	e.s.removeEffect(e)
	return e.run(ctx)
}

// callDisposer runs fn under recover and the host's dispose timeout. A
// disposer that outlives the timeout is left running; teardown moves on and
// reports `disposer "<label>" timed out after <d>`.
//
// One timer serves both the cut-off and fn's deadline: the deadline of
// fn's ctx is the timeout. A disposer that returns once that ctx has
// expired (it waited on it) timed out too, whatever it returned; so the
// outcome does not depend on which of its return and the deadline this
// goroutine sees first.
func (h *Host) callDisposer(ctx context.Context, label string, fn Disposer) error {
	site := fmt.Sprintf("disposer %q", label)
	if h.disposeTimeout <= 0 {
		return Protect(site, func() error { return fn(ctx) })
	}
	dctx, cancel := context.WithTimeout(ctx, h.disposeTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Protect(site, func() error { return fn(dctx) }) }()
	select {
	case err := <-done:
		if dctx.Err() == nil || ctx.Err() != nil {
			return err
		}
	case <-dctx.Done():
		if ctx.Err() != nil {
			select {
			case err := <-done:
				return err
			default:
			}
			return fmt.Errorf("disposer %q cut off: %w", label, ctx.Err())
		}
	}
	return fmt.Errorf("disposer %q timed out after %s", label, h.disposeTimeout)
}

// Effect registers fn as a teardown step of s, labelled for logs and
// timeouts (e.g. `watch("config.yaml")`). Effects run in strict reverse
// registration order, one at a time, when s ends (host §1.3). The returned
// Disposer runs fn early and drops it from s. On an inactive scope Effect
// returns ErrInactive and fn is not kept.
func (s *Scope) Effect(label string, fn Disposer) (Disposer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrInactive
	}
	return s.addEffectLocked(label, fn).dispose, nil
}

func (s *Scope) addEffectLocked(label string, fn Disposer) *effect {
	e := &effect{s: s, label: label, fn: fn}
	s.effects = append(s.effects, e)
	s.h.effectCount.Add(1)
	return e
}

func (s *Scope) removeEffect(e *effect) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.effects {
		if x == e {
			s.effects = append(s.effects[:i:i], s.effects[i+1:]...)
			return
		}
	}
}

// close ends the scope: it refuses new registrations, then runs every
// effect (goroutines started with Go included) newest first. It returns the joined failures; each is also logged.
func (s *Scope) close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	effs := s.effects
	s.effects = nil
	s.mu.Unlock()

	var errs []error
	for i := len(effs) - 1; i >= 0; i-- {
		if err := effs[i].run(ctx); err != nil {
			s.Logger().Error("disposer failed", "effect", effs[i].label, "err", err)
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}
