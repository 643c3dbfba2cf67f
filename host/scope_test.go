package host_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// registrations are every way to register something on a scope, each
// returning only its error.
var registrations = []struct {
	name     string
	register func(s *host.Scope) error
}{
	{"Effect", func(s *host.Scope) error {
		_, err := s.Effect("late", func(context.Context) error { return nil })
		return err
	}},
	{"Notify.On", func(s *host.Scope) error {
		_, err := host.NewNotify[int]("late/notify").On(s, func(context.Context, int) error { return nil })
		return err
	}},
	{"Chain.On", func(s *host.Scope) error {
		_, err := host.NewChain[int, int]("late/chain").On(s, func(ctx context.Context, _ int, next host.Next[int]) (int, error) {
			return next(ctx)
		})
		return err
	}},
	{"Key.Provide", func(s *host.Scope) error {
		_, err := host.NewKey[int]("late").Provide(s, 1)
		return err
	}},
	{"Plugin", func(s *host.Scope) error {
		_, err := s.Plugin(context.Background(), define("late", func(context.Context, *host.Scope) error { return nil }), nil)
		return err
	}},
	{"With", func(s *host.Scope) error {
		_, err := s.With(context.Background(), "late", nil, func(context.Context, *host.Scope) error { return nil })
		return err
	}},
	{"Go", func(s *host.Scope) error {
		return s.Go("late", func(context.Context) { panic("a goroutine on an inactive scope must not run") })
	}},
}

// host §6 item 1: registration on a DISPOSED or UNLOADING scope returns
// ErrInactive, and nothing is kept.
func TestRegistrationOnAnInactiveScope(t *testing.T) {
	t.Run("a disposed scope refuses every registration", func(t *testing.T) {
		h := newHost(t)
		var scope *host.Scope
		inst := mount(t, h, define("gone", func(_ context.Context, s *host.Scope) error { scope = s; return nil }), nil)
		require.NoError(t, inst.Dispose(t.Context()))
		for _, r := range registrations {
			assert.ErrorIs(t, r.register(scope), host.ErrInactive, r.name)
		}
		assert.Equal(t, host.Counts{}, h.Counts())
	})
	t.Run("an unloading scope refuses every registration", func(t *testing.T) {
		h := newHost(t)
		got := map[string]error{}
		inst := mount(t, h, define("unloading", func(_ context.Context, s *host.Scope) error {
			_, err := s.Effect("try", func(context.Context) error {
				for _, r := range registrations {
					got[r.name] = r.register(s)
				}
				return nil
			})
			return err
		}), nil)
		require.NoError(t, inst.Dispose(t.Context()))
		require.Len(t, got, len(registrations))
		for name, err := range got {
			assert.ErrorIs(t, err, host.ErrInactive, name)
		}
		assert.Equal(t, host.Counts{}, h.Counts())
	})
	t.Run("the root scope refuses registrations after shutdown", func(t *testing.T) {
		h := newHost(t)
		require.NoError(t, h.Shutdown(t.Context()))
		for _, r := range registrations {
			assert.ErrorIs(t, r.register(h.Root()), host.ErrInactive, r.name)
		}
	})
}

// host §1.1, §6 item 1: a child is an effect of its parent, so disposing the
// parent disposes the whole subtree; a second dispose is a no-op.
func TestDisposingAParentDisposesItsChildren(t *testing.T) {
	h := newHost(t)
	var j journal
	var child, grandchild *host.Instance
	grandchildPlugin := define("grandchild", func(_ context.Context, s *host.Scope) error {
		_, err := s.Effect("grandchild", j.effect("grandchild"))
		return err
	})
	childPlugin := define("child", func(ctx context.Context, s *host.Scope) error {
		if _, err := s.Effect("child before", j.effect("child before")); err != nil {
			return err
		}
		var err error
		if grandchild, err = s.Plugin(ctx, grandchildPlugin, nil); err != nil {
			return err
		}
		_, err = s.Effect("child after", j.effect("child after"))
		return err
	})
	parent := mount(t, h, define("parent", func(ctx context.Context, s *host.Scope) error {
		if _, err := s.Effect("parent before", j.effect("parent before")); err != nil {
			return err
		}
		var err error
		child, err = s.Plugin(ctx, childPlugin, nil)
		return err
	}), nil)
	require.Equal(t, host.StateActive, grandchild.State())
	snap := h.Snapshot()
	require.Len(t, snap, 3)
	assert.Equal(t, []string{"root", "parent", "child"}, []string{snap[0].Parent, snap[1].Parent, snap[2].Parent})

	var states journal
	watchStates(t, h, &states)
	require.NoError(t, parent.Dispose(t.Context()))
	assert.Equal(t, []string{"dispose child after", "dispose grandchild", "dispose child before", "dispose parent before"}, j.take())
	for _, inst := range []*host.Instance{parent, child, grandchild} {
		assert.Equal(t, host.StateDisposed, inst.State(), inst.ID())
	}
	transitions := len(states.list())

	require.NoError(t, parent.Dispose(t.Context()), "a second dispose is a no-op")
	require.NoError(t, child.Dispose(t.Context()))
	assert.Empty(t, j.list(), "no disposer runs twice")
	assert.Len(t, states.list(), transitions, "a second dispose changes no state")
	assert.Equal(t, host.Counts{}, h.Counts())
}

// Disposing a child directly drops it from its parent, which then no longer
// disposes it.
func TestDisposingAChildDirectly(t *testing.T) {
	h := newHost(t)
	var j journal
	var child *host.Instance
	parent := mount(t, h, define("parent", func(ctx context.Context, s *host.Scope) error {
		var err error
		child, err = s.Plugin(ctx, define("child", func(_ context.Context, s *host.Scope) error {
			_, err := s.Effect("child", j.effect("child"))
			return err
		}), nil)
		return err
	}), nil)
	before := h.Counts()
	require.NoError(t, child.Dispose(t.Context()))
	assert.Equal(t, host.Counts{Instances: before.Instances - 1, Effects: before.Effects - 2}, h.Counts(),
		"the child's own effect and its mount effect on the parent are gone")
	require.NoError(t, parent.Dispose(t.Context()))
	assert.Equal(t, []string{"dispose child"}, j.list(), "the child's disposers ran once, when it was disposed")
	assert.Equal(t, host.StateDisposed, child.State())
}

// host §6 item 10: the ctx of s.Go is cancelled on unload, and goroutines
// started with it finish before the instance is DISPOSED.
func TestScopeGoroutinesFinishBeforeDisposed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHost(t)
		var j journal
		watchStates(t, h, &j)
		inst := mount(t, h, define("worker", func(_ context.Context, s *host.Scope) error {
			return s.Go("loop", func(ctx context.Context) {
				<-ctx.Done()
				time.Sleep(time.Second) // a slow wind-down
				j.add("loop finished: %v", ctx.Err())
			})
		}), nil)
		synctest.Wait()
		assert.Equal(t, []string{"worker PENDING->LOADING", "worker LOADING->ACTIVE"}, j.take(), "the loop runs until unload")
		require.NoError(t, inst.Dispose(t.Context()))
		assert.Equal(t, []string{
			"worker ACTIVE->UNLOADING",
			"loop finished: context canceled",
			"worker UNLOADING->DISPOSED",
		}, j.list())
	})
}

// A scope goroutine that outlives the dispose timeout is reported, and a
// panicking one is recovered and logged.
func TestScopeGoroutineFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		h := newHost(t, host.WithDisposeTimeout(time.Second), host.WithLogger(bufferLogger(&logs)))
		inst := mount(t, h, define("stubborn", func(_ context.Context, s *host.Scope) error {
			if err := s.Go("panicky", func(context.Context) { panic("oops") }); err != nil {
				return err
			}
			return s.Go("deaf", func(context.Context) { time.Sleep(time.Minute) })
		}), nil)
		synctest.Wait()
		assert.Contains(t, logs.String(),
			`level=ERROR msg="scope goroutine panicked" plugin=stubborn instance=stubborn goroutine=panicky err="goroutine \"panicky\" panicked: oops"`)
		start := time.Now()
		assert.EqualError(t, inst.Dispose(t.Context()), `disposer "go(\"deaf\")" timed out after 1s`)
		assert.Equal(t, time.Second, time.Since(start))
		assert.Equal(t, host.StateDisposed, inst.State())
		time.Sleep(time.Minute)
	})
}

// Without a dispose timeout, the shutdown ctx bounds the wait for a scope
// goroutine.
func TestScopeGoroutineWithoutADisposeTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHost(t, host.WithDisposeTimeout(0))
		inst := mount(t, h, define("stubborn", func(_ context.Context, s *host.Scope) error {
			return s.Go("deaf", func(context.Context) { time.Sleep(time.Minute) })
		}), nil)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		err := h.Shutdown(ctx)
		assert.EqualError(t, err, `goroutine "deaf" did not finish: context deadline exceeded`)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, host.StateDisposed, inst.State())
		time.Sleep(time.Minute)
	})
}

// bufferLogger logs text records without timestamps to buf.
func bufferLogger(buf *bytes.Buffer) *slog.Logger {
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// The scope logger is tagged with the plugin and the instance.
func TestTheScopeLoggerIsTaggedWithTheInstance(t *testing.T) {
	var logs bytes.Buffer
	h := newHost(t, host.WithLogger(bufferLogger(&logs)))
	p := define("tagged", func(_ context.Context, s *host.Scope) error {
		s.Logger().Info("hello", "n", 1)
		return nil
	})
	mount(t, h, p, nil)
	mount(t, h, p, nil, host.ID("second"))
	var lines []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "msg=hello") {
			lines = append(lines, line)
		}
	}
	assert.Equal(t, []string{
		"level=INFO msg=hello plugin=tagged instance=tagged n=1",
		"level=INFO msg=hello plugin=tagged instance=second n=1",
	}, lines)

	logs.Reset()
	mount(t, h, define("failing", func(context.Context, *host.Scope) error { return assert.AnError }), nil)
	assert.Contains(t, logs.String(),
		`level=ERROR msg="plugin failed" plugin=failing instance=failing err="plugin \"failing\": `+assert.AnError.Error()+`"`)
}

// host §2.1: apply's ctx keeps the mount ctx's values, not its
// cancellation, and carries the load timeout; the scope knows its host and
// instance.
func TestApplyContextAndScopeAccessors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHost(t, host.WithLoadTimeout(time.Minute))
		type ctxKey struct{}
		var (
			value    any
			deadline time.Duration
			errAfter error
			scope    *host.Scope
		)
		mountCtx, cancel := context.WithCancel(context.WithValue(t.Context(), ctxKey{}, "carried"))
		cancel()
		inst, err := h.Plugin(mountCtx, define("ctx", func(ctx context.Context, s *host.Scope) error {
			scope = s
			value = ctx.Value(ctxKey{})
			d, _ := ctx.Deadline()
			deadline = time.Until(d)
			errAfter = ctx.Err()
			return nil
		}), nil)
		require.NoError(t, err)
		assert.Equal(t, "carried", value)
		assert.Equal(t, time.Minute, deadline)
		assert.NoError(t, errAfter, "the mount ctx's cancellation does not reach apply")
		assert.Same(t, h, scope.Host())
		assert.Same(t, inst, scope.Instance())
		assert.Same(t, scope, inst.Scope())
	})
}

// host §1.3, §2.1: waiting for a Scope.Go goroutine is a disposer in its
// place: the goroutine is stopped and awaited after everything registered
// later is torn down, and before everything registered earlier.
func TestScopeGoroutinesAreTornDownInTheirPlace(t *testing.T) {
	h := newHost(t)
	var j journal
	stopped := make(chan struct{})
	var workerCtx context.Context
	inst := mount(t, h, define("ordered", func(_ context.Context, s *host.Scope) error {
		if _, err := s.Effect("earlier", func(context.Context) error {
			select {
			case <-stopped:
				j.add("earlier: worker finished")
			default:
				j.add("earlier: worker still running")
			}
			return nil
		}); err != nil {
			return err
		}
		started := make(chan struct{})
		if err := s.Go("worker", func(ctx context.Context) {
			workerCtx = ctx
			close(started)
			<-ctx.Done()
			close(stopped)
		}); err != nil {
			return err
		}
		<-started
		_, err := s.Effect("later", func(context.Context) error {
			j.add("later: worker cancelled %t", workerCtx.Err() != nil)
			return nil
		})
		return err
	}), nil)
	require.NoError(t, inst.Dispose(t.Context()))
	assert.Equal(t, []string{"later: worker cancelled false", "earlier: worker finished"}, j.list())
}
