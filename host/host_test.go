package host_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
)

var (
	censusEvent = host.NewNotify[string]("test/census")
	censusChain = host.NewChain[string, string]("test/census-chain")
	censusKey   = host.NewKey[string]("census")
)

// busyPlugin registers one of everything: listeners, a service, effects, a
// child plugin with its own listener and a goroutine.
func busyPlugin(j *journal) *host.Plugin {
	child := define("busy-child", func(_ context.Context, s *host.Scope) error {
		_, err := censusEvent.On(s, func(context.Context, string) error { j.add("child heard"); return nil })
		return err
	})
	return define("busy", func(ctx context.Context, s *host.Scope) error {
		if _, err := censusEvent.On(s, func(_ context.Context, a string) error { j.add("busy heard %s", a); return nil }); err != nil {
			return err
		}
		if _, err := censusChain.On(s, func(ctx context.Context, a string, next host.Next[string]) (string, error) {
			return next(ctx)
		}); err != nil {
			return err
		}
		if _, err := censusKey.Provide(s, "busy"); err != nil {
			return err
		}
		if _, err := s.Effect("cleanup", j.effect("cleanup")); err != nil {
			return err
		}
		if _, err := s.Plugin(ctx, child, nil); err != nil {
			return err
		}
		return s.Go("ticker", func(ctx context.Context) { <-ctx.Done() })
	})
}

// host §6 item 1, §1.1: mount then unmount returns listeners, services,
// effects and instances to the baseline, and a re-mount reaches the same
// counts as the first mount.
func TestMountThenUnmountReturnsToTheBaseline(t *testing.T) {
	h := newHost(t)
	var j journal
	// Something already mounted, so the baseline is not all zeros.
	mount(t, h, define("resident", func(_ context.Context, s *host.Scope) error {
		_, err := censusEvent.On(s, func(context.Context, string) error { return nil })
		return err
	}), nil)
	base := hosttest.TakeBaseline(h)
	require.Equal(t, host.Counts{Instances: 1, Listeners: 1, Effects: 2}, base.Counts())

	first := mount(t, h, busyPlugin(&j), nil)
	mounted := h.Counts()
	assert.Equal(t, host.Counts{Instances: 3, Listeners: 4, Services: 1, Effects: 2 + 8}, mounted,
		"busy: its own mount, 2 listeners, 1 service, 1 effect, 1 child mount, 1 goroutine; the child: 1 listener")
	require.NoError(t, censusEvent.Emit(t.Context(), h.Root(), "x"))
	assert.Equal(t, []string{"busy heard x", "child heard"}, j.take())

	require.NoError(t, first.Dispose(t.Context()))
	base.Assert(t)
	assert.Equal(t, []string{"dispose cleanup"}, j.take())

	second := mount(t, h, busyPlugin(&j), nil)
	assert.NoError(t, hosttest.Diff(mounted, h.Counts()), "a re-mount reaches the same counts")
	require.NoError(t, second.Dispose(t.Context()))
	base.Assert(t)
	assert.Equal(t, []string{"dispose cleanup"}, j.take())

	require.NoError(t, censusEvent.Emit(t.Context(), h.Root(), "y"))
	assert.Empty(t, j.list(), "no listener of the unmounted plugin is left")
	_, ok := censusKey.Get(h.Root())
	assert.False(t, ok, "no service of the unmounted plugin is left")
}

// host §6 item 1: the baseline holds across every way an instance can end:
// a failed apply, an invalid config, a dependent sent back to PENDING.
func TestEveryEndingReturnsToTheBaseline(t *testing.T) {
	h := newHost(t)
	var j journal
	base := hosttest.TakeBaseline(h)
	consumer := define("consumer", func(_ context.Context, s *host.Scope) error {
		_, err := censusEvent.On(s, func(context.Context, string) error { return nil })
		return err
	}, host.Inject(censusKey))
	failing := define("failing", func(ctx context.Context, s *host.Scope) error {
		if _, err := censusEvent.On(s, func(context.Context, string) error { return nil }); err != nil {
			return err
		}
		return errors.New("late failure")
	})
	insts := []*host.Instance{
		mount(t, h, consumer, nil),
		mount(t, h, busyPlugin(&j), nil),
		mount(t, h, failing, nil),
		mount(t, h, samplePlugin(nil), sampleConfig{Limit: -1}),
	}
	require.Equal(t, host.StateActive, insts[0].State())
	require.NoError(t, insts[1].Dispose(t.Context()))
	require.Equal(t, host.StatePending, insts[0].State())
	for _, inst := range insts {
		require.NoError(t, inst.Dispose(t.Context()))
	}
	base.Assert(t)
}

// host §6 item 19, §3.5: no host lock is held while a listener runs, so a
// listener can call every host API, through the EventBus path, without
// deadlocking.
func TestAListenerCanCallEveryHostAPI(t *testing.T) {
	h := newHost(t)
	var j journal
	s, _ := listenerScope(t, h, "listeners")
	other, otherInst := listenerScope(t, h, "other")
	ping := host.NewNotify[int]("test/ping")
	chain := host.NewChain[int, int]("test/chain")
	key := host.NewKey[int]("from-listener")
	on(t, ping, other, record[int](&j, "other heard"))
	chainOn(t, chain, s, func(ctx context.Context, a int, next host.Next[int]) (int, error) {
		n, err := next(ctx)
		return n + a, err
	})

	consumer := define("consumer", func(_ context.Context, s *host.Scope) error {
		j.add("consumer got %d", key.Must(s))
		return nil
	}, host.Inject(key))
	var consumerInst *host.Instance
	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Emit", func(ctx context.Context) error { return ping.Emit(ctx, s, 2) }},
		{"Waterfall", func(ctx context.Context) error {
			n, err := chain.Waterfall(ctx, s, 40, func(context.Context) (int, error) { return 2, nil })
			j.add("waterfall gave %d", n)
			return err
		}},
		{"On", func(ctx context.Context) error {
			_, err := ping.On(s, record[int](&j, "registered by the listener"))
			return err
		}},
		{"Effect", func(ctx context.Context) error {
			_, err := s.Effect("from listener", j.effect("from listener"))
			return err
		}},
		{"Plugin", func(ctx context.Context) error {
			var err error
			if consumerInst, err = s.Plugin(ctx, consumer, nil); err == nil {
				j.add("consumer is %s", consumerInst.State())
			}
			return err
		}},
		{"Provide", func(ctx context.Context) error { _, err := key.Provide(s, 7); return err }},
		{"Get", func(ctx context.Context) error {
			if v, ok := key.Get(s); !ok || v != 7 {
				return fmt.Errorf("Get gave %d, %t", v, ok)
			}
			return nil
		}},
		{"Snapshot", func(ctx context.Context) error { j.add("snapshot has %d", len(h.Snapshot())); return nil }},
		{"Counts", func(ctx context.Context) error { _ = h.Counts(); return nil }},
		{"Audit", func(ctx context.Context) error { return h.Audit() }},
		{"Dispose", func(ctx context.Context) error { return otherInst.Dispose(ctx) }},
		{"Restart", func(ctx context.Context) error { return consumerInst.Restart(ctx) }},
		{"Update", func(ctx context.Context) error { return consumerInst.Update(ctx, nil) }},
	}
	var once sync.Once
	on(t, ping, s, func(ctx context.Context, n int) error {
		if n != 1 {
			return nil
		}
		var errs []error
		once.Do(func() {
			for _, c := range calls {
				if err := c.call(ctx); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
				}
			}
		})
		return errors.Join(errs...)
	})
	within(t, 10*time.Second, "a listener calling every host API", func() {
		assert.NoError(t, ping.Emit(context.Background(), h.Root(), 1))
	})
	assert.Equal(t, []string{
		"other heard", // the top-level Emit(1), before the calling listener
		"other heard", // the nested Emit(2)
		"waterfall gave 42",
		"consumer is PENDING",
		"consumer got 7", // the consumer starts once the listener provides the service
		"snapshot has 3",
		"consumer got 7", // Restart
		"consumer got 7", // Update
	}, j.list())
	assert.Equal(t, host.StateDisposed, otherInst.State())
}

// host §6 item 19: the race detector is clean under concurrent emits,
// registrations, mounts and disposals, and the host ends at its baseline.
func TestConcurrentUseIsRaceFree(t *testing.T) {
	const rounds = 150
	h := newHost(t)
	ping := host.NewNotify[int]("test/race")
	chain := host.NewChain[int, int]("test/race-chain")
	key := host.NewKey[int]("race")
	base := hosttest.TakeBaseline(h)

	s, resident := listenerScope(t, h, "resident")
	on(t, ping, s, func(ctx context.Context, n int) error {
		if n%10 == 0 { // re-entrant work from inside a listener
			_, err := chain.Waterfall(ctx, s, n, func(context.Context) (int, error) { return n, nil })
			return err
		}
		return nil
	})
	chainOn(t, chain, s, func(ctx context.Context, a int, next host.Next[int]) (int, error) { return next(ctx) })
	consumer := mount(t, h, define("consumer", func(_ context.Context, s *host.Scope) error {
		// Get, not Must: an emit that snapshotted this listener may still
		// call it while the provider below withdraws the service (the
		// consumer is unloaded first, but a call already under way is not
		// waited for). This test is about data races, not that window.
		_, err := ping.On(s, func(context.Context, int) error { key.Get(s); return nil })
		return err
	}, host.Inject(key)), nil)
	worker := define("worker", func(ctx context.Context, s *host.Scope) error {
		if _, err := ping.On(s, func(context.Context, int) error { return nil }); err != nil {
			return err
		}
		if err := s.Go("idle", func(ctx context.Context) { <-ctx.Done() }); err != nil {
			return err
		}
		return ping.Emit(ctx, s, -1)
	})
	provider := define("provider", func(_ context.Context, s *host.Scope) error {
		_, err := key.Provide(s, 1)
		return err
	})

	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Go(func() { // emits of every kind
		for i := range rounds {
			assert.NoError(t, ping.Emit(ctx, s, i))
			_, err := chain.Waterfall(ctx, s, i, func(context.Context) (int, error) { return i, nil })
			assert.NoError(t, err)
		}
	})
	wg.Go(func() { // registrations and their disposal
		for i := range rounds {
			opts := []host.ListenOption{}
			if i%3 == 0 {
				opts = append(opts, host.Prepend())
			}
			d, err := ping.On(s, func(context.Context, int) error { return nil }, opts...)
			assert.NoError(t, err)
			cd, err := chain.On(s, func(ctx context.Context, a int, next host.Next[int]) (int, error) { return next(ctx) })
			assert.NoError(t, err)
			ed, err := s.Effect("churn", func(context.Context) error { return nil })
			assert.NoError(t, err)
			assert.NoError(t, d(ctx))
			assert.NoError(t, cd(ctx))
			assert.NoError(t, ed(ctx))
		}
	})
	wg.Go(func() { // mounts and disposals
		for range rounds / 3 {
			inst, err := h.Plugin(ctx, worker, nil)
			if assert.NoError(t, err) {
				assert.NoError(t, inst.Dispose(ctx))
			}
		}
	})
	wg.Go(func() { // a provider coming and going under its consumer
		for range rounds / 3 {
			inst, err := h.Plugin(ctx, provider, nil)
			if assert.NoError(t, err) {
				assert.NoError(t, inst.Dispose(ctx))
			}
		}
	})
	wg.Go(func() { // observers
		for range rounds {
			_ = h.Snapshot()
			_ = h.Counts()
			_ = h.Audit()
			_ = consumer.State()
			_ = consumer.Missing()
		}
	})
	within(t, 60*time.Second, "the concurrent workload", wg.Wait)

	assert.Equal(t, host.StatePending, consumer.State())
	require.NoError(t, consumer.Dispose(ctx))
	require.NoError(t, resident.Dispose(ctx))
	base.Assert(t)
}
