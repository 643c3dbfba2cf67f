package host_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// host §1.3, §6 items 1 and 7: everything registered through a scope
// (effects, listeners, services, child plugins, goroutines) is torn down in
// strict reverse registration order. Each effect records what is still
// registered when it runs, which shows where the other registrations went.
func TestEverythingIsTornDownInReverseOrder(t *testing.T) {
	h := newHost(t)
	var j journal
	ev := host.NewNotify[int]("test/order")
	key := host.NewKey[string]("ordered")
	var child *host.Instance
	census := func(label string) host.Disposer {
		return func(context.Context) error {
			_, svc := key.Get(h.Root())
			j.add("%s: listeners=%d service=%t child=%s", label, h.Counts().Listeners, svc, child.State())
			return nil
		}
	}
	childPlugin := define("child", func(_ context.Context, s *host.Scope) error {
		_, err := s.Effect("child", j.effect("child"))
		return err
	})
	parent := define("parent", func(ctx context.Context, s *host.Scope) error {
		steps := []func() error{
			func() error { _, err := s.Effect("e1", census("e1")); return err },
			func() error {
				_, err := ev.On(s, func(context.Context, int) error { return nil })
				return err
			},
			func() error { _, err := s.Effect("e2", census("e2")); return err },
			func() error { _, err := key.Provide(s, "v"); return err },
			func() error { _, err := s.Effect("e3", census("e3")); return err },
			func() error { var err error; child, err = s.Plugin(ctx, childPlugin, nil); return err },
			func() error { _, err := s.Effect("e4", census("e4")); return err },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
	inst := mount(t, h, parent, nil)
	require.Equal(t, host.StateActive, child.State())
	require.NoError(t, inst.Dispose(t.Context()))
	assert.Equal(t, []string{
		"e4: listeners=1 service=true child=ACTIVE",
		"dispose child",
		"e3: listeners=1 service=true child=DISPOSED",
		"e2: listeners=1 service=false child=DISPOSED",
		"e1: listeners=0 service=false child=DISPOSED",
	}, j.list())
}

// host §1.3, §3.6: disposers run one at a time, even when they are slow.
func TestSlowDisposersRunOneAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHost(t)
		var j journal
		start := time.Now()
		slow := func(name string, d time.Duration) host.Disposer {
			return func(context.Context) error {
				j.add("start %s at %s", name, time.Since(start))
				time.Sleep(d)
				j.add("end %s at %s", name, time.Since(start))
				return nil
			}
		}
		inst := mount(t, h, define("slow", func(_ context.Context, s *host.Scope) error {
			if _, err := s.Effect("first", slow("first", 2*time.Second)); err != nil {
				return err
			}
			_, err := s.Effect("second", slow("second", time.Second))
			return err
		}), nil)
		require.NoError(t, inst.Dispose(t.Context()))
		assert.Equal(t, []string{
			"start second at 0s", "end second at 1s",
			"start first at 1s", "end first at 3s",
		}, j.list())
	})
}

// host §6 item 7: a failing or panicking disposer does not stop the others;
// the failures are returned joined, newest first.
func TestFailingAndPanickingDisposersDoNotStopTeardown(t *testing.T) {
	h := newHost(t)
	var j journal
	inst := mount(t, h, define("messy", func(_ context.Context, s *host.Scope) error {
		for _, e := range []struct {
			label string
			fn    host.Disposer
		}{
			{"a", j.effect("a")},
			{"b", func(context.Context) error { j.add("dispose b"); return errors.New("b failed") }},
			{"c", func(context.Context) error { j.add("dispose c"); panic("c exploded") }},
			{"d", j.effect("d")},
		} {
			if _, err := s.Effect(e.label, e.fn); err != nil {
				return err
			}
		}
		return nil
	}), nil)
	err := inst.Dispose(t.Context())
	assert.EqualError(t, err, "disposer \"c\" panicked: c exploded\nb failed")
	var pe *host.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, `disposer "c"`, pe.Site)
	assert.Equal(t, []string{"dispose d", "dispose c", "dispose b", "dispose a"}, j.list())
	assert.Equal(t, host.StateDisposed, inst.State())
	assert.Equal(t, host.Counts{}, h.Counts())
}

func TestASingleDisposerFailureIsReturnedUnchanged(t *testing.T) {
	h := newHost(t)
	failure := errors.New("flush failed")
	inst := mount(t, h, define("single", func(_ context.Context, s *host.Scope) error {
		_, err := s.Effect("flush", func(context.Context) error { return failure })
		return err
	}), nil)
	assert.Same(t, failure, inst.Dispose(t.Context()))
}

// host §6 item 7, §3.6 (Cordis PR #31): root shutdown returns the joined
// errors of every failing disposer, newest mount first.
func TestShutdownReturnsTheJoinedErrors(t *testing.T) {
	h := newHost(t)
	failing := func(name string) *host.Plugin {
		return define(name, func(_ context.Context, s *host.Scope) error {
			_, err := s.Effect("close", func(context.Context) error { return fmt.Errorf("%s: close failed", name) })
			return err
		})
	}
	first := mount(t, h, failing("first"), nil)
	mount(t, h, define("fine", func(context.Context, *host.Scope) error { return nil }), nil)
	second := mount(t, h, failing("second"), nil)
	assert.EqualError(t, h.Shutdown(t.Context()), "second: close failed\nfirst: close failed")
	assert.Equal(t, host.StateDisposed, first.State())
	assert.Equal(t, host.StateDisposed, second.State())
	assert.NoError(t, h.Shutdown(t.Context()), "a second shutdown is a no-op")
	_, err := h.Plugin(t.Context(), failing("late"), nil)
	assert.ErrorIs(t, err, host.ErrInactive)
}

// host §6 item 7: a slow disposer is cut off at the dispose timeout; its ctx
// is cancelled and teardown moves on.
func TestASlowDisposerIsCutOffAtTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHost(t, host.WithDisposeTimeout(100*time.Millisecond))
		var j journal
		start := time.Now()
		inst := mount(t, h, define("stuck", func(_ context.Context, s *host.Scope) error {
			if _, err := s.Effect("after", func(context.Context) error {
				j.add("after ran at %s", time.Since(start))
				return nil
			}); err != nil {
				return err
			}
			if _, err := s.Effect("sleeper", func(context.Context) error {
				time.Sleep(time.Hour) // ignores its ctx: left running
				j.add("sleeper woke")
				return nil
			}); err != nil {
				return err
			}
			_, err := s.Effect("waiter", func(ctx context.Context) error {
				deadline, ok := ctx.Deadline()
				j.add("waiter deadline in %s (%t)", deadline.Sub(start), ok)
				<-ctx.Done()
				// Cut off by its deadline or by the host: either is "done".
				j.add("waiter done (%t) at %s", ctx.Err() != nil, time.Since(start))
				return nil
			})
			return err
		}), nil)
		err := inst.Dispose(t.Context())
		assert.EqualError(t, err, "disposer \"waiter\" timed out after 100ms\ndisposer \"sleeper\" timed out after 100ms")
		synctest.Wait()
		assert.Equal(t, []string{
			"waiter deadline in 100ms (true)",
			"waiter done (true) at 100ms",
			"after ran at 200ms",
		}, j.list())
		assert.Equal(t, host.StateDisposed, inst.State())
		time.Sleep(time.Hour)
		assert.Equal(t, "sleeper woke", j.list()[3], "the cut-off disposer was left running, not killed")
	})
}

// host §3.6, §6 item 7: a child plugin's disposal is a step of its parent's
// teardown, and each of the child's disposers has its own timeout, so a
// child whose teardown takes longer than one timeout in all (two disposers
// of 70 ms under a 100 ms timeout) is torn down to the end before its
// parent's earlier effects run: they never overlap.
func TestAChildsTeardownEndsBeforeItsParentMovesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHost(t, host.WithDisposeTimeout(100*time.Millisecond))
		var j journal
		start := time.Now()
		sleeper := func(name string) host.Disposer {
			return func(context.Context) error {
				time.Sleep(70 * time.Millisecond)
				j.add("%s returned at %s", name, time.Since(start))
				return nil
			}
		}
		child := define("child", func(_ context.Context, s *host.Scope) error {
			if _, err := s.Effect("child 1", sleeper("child 1")); err != nil {
				return err
			}
			_, err := s.Effect("child 2", sleeper("child 2"))
			return err
		})
		parent := mount(t, h, define("parent", func(ctx context.Context, s *host.Scope) error {
			if _, err := s.Effect("parent first", func(context.Context) error {
				j.add("parent first ran at %s", time.Since(start))
				return nil
			}); err != nil {
				return err
			}
			if _, err := s.Plugin(ctx, child, nil); err != nil {
				return err
			}
			_, err := s.Effect("parent stuck", func(context.Context) error {
				time.Sleep(time.Hour) // ignores its ctx: left running
				return nil
			})
			return err
		}), nil)
		err := parent.Dispose(t.Context())
		assert.EqualError(t, err, "disposer \"parent stuck\" timed out after 100ms")
		assert.Equal(t, []string{
			"child 2 returned at 170ms",
			"child 1 returned at 240ms",
			"parent first ran at 240ms",
		}, j.list())
		time.Sleep(time.Hour)
	})
}

// host §2.2: a disposer's ctx carries the shutdown deadline.
func TestDisposersSeeTheShutdownDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHost(t, host.WithDisposeTimeout(0))
		var got time.Time
		mount(t, h, define("deadline", func(_ context.Context, s *host.Scope) error {
			_, err := s.Effect("look", func(ctx context.Context) error {
				got, _ = ctx.Deadline()
				return nil
			})
			return err
		}), nil)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		want, _ := ctx.Deadline()
		require.NoError(t, h.Shutdown(ctx))
		assert.Equal(t, want, got)
	})
}

// host §1.3: an effect's Disposer is idempotent; running it early drops the
// effect from its scope, so teardown does not run it again.
func TestAnEffectDisposerIsIdempotent(t *testing.T) {
	h := newHost(t)
	runs := 0
	var early host.Disposer
	inst := mount(t, h, define("early", func(_ context.Context, s *host.Scope) error {
		var err error
		early, err = s.Effect("once", func(context.Context) error { runs++; return errors.New("once failed") })
		return err
	}), nil)
	before := h.Counts().Effects
	assert.EqualError(t, early(t.Context()), "once failed")
	assert.Equal(t, before-1, h.Counts().Effects)
	assert.NoError(t, early(t.Context()), "later calls return nil")
	require.NoError(t, inst.Dispose(t.Context()))
	assert.Equal(t, 1, runs)
}

// Shutdown's ctx bounds the whole of it: a disposer's ctx carries that
// deadline, and one that is still running when it passes is cut off.
func TestShutdownsCtxBoundsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHost(t, host.WithDisposeTimeout(time.Minute))
		deadline := make(chan time.Time, 1)
		start := time.Now()
		mount(t, h, define("waiter", func(_ context.Context, s *host.Scope) error {
			_, err := s.Effect("waiter", func(ctx context.Context) error {
				d, _ := ctx.Deadline()
				deadline <- d
				time.Sleep(time.Hour) // ignores its ctx
				return nil
			})
			return err
		}), nil)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := h.Shutdown(ctx)
		assert.Equal(t, time.Second, time.Since(start))
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorContains(t, err, `disposer "waiter" cut off: context deadline exceeded`)
		assert.Equal(t, start.Add(time.Second), <-deadline)
		time.Sleep(time.Hour) // the cut-off disposer returns
	})
}

// host §2.1: an apply that waits on its ctx is ended at the load timeout.
func TestAnApplyThatWaitsIsEndedAtTheLoadTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHost(t, host.WithLoadTimeout(time.Second))
		start := time.Now()
		inst, _ := h.Plugin(t.Context(), define("waits", func(ctx context.Context, _ *host.Scope) error {
			<-ctx.Done()
			return ctx.Err()
		}), nil)
		require.NotNil(t, inst)
		assert.Equal(t, host.StateFailed, inst.State())
		assert.ErrorIs(t, inst.Err(), context.DeadlineExceeded)
		assert.Equal(t, time.Second, time.Since(start))
	})
}
