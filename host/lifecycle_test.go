package host_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
)

func TestStateString(t *testing.T) {
	for st, want := range map[host.State]string{
		host.StatePending: "PENDING", host.StateLoading: "LOADING", host.StateActive: "ACTIVE",
		host.StateFailed: "FAILED", host.StateUnloading: "UNLOADING", host.StateDisposed: "DISPOSED",
		host.State(-1): "UNKNOWN", host.State(6): "UNKNOWN",
	} {
		assert.Equal(t, want, st.String())
	}
}

// host §1.4: a mount goes PENDING -> LOADING -> ACTIVE, an unmount
// ACTIVE -> UNLOADING -> DISPOSED, and apply sees LOADING.
func TestStatesOfAMountAndUnmount(t *testing.T) {
	h := newHost(t)
	var j journal
	watchStates(t, h, &j)
	var during host.State
	p := define("plain", func(_ context.Context, s *host.Scope) error {
		during = s.Instance().State()
		return nil
	})
	inst := mount(t, h, p, nil)
	assert.Equal(t, host.StateLoading, during)
	assert.Equal(t, host.StateActive, inst.State())
	assert.Equal(t, "plain", inst.ID())
	assert.Same(t, p, inst.Plugin())
	assert.NotNil(t, inst.Scope())
	require.NoError(t, inst.Dispose(t.Context()))
	assert.Equal(t, host.StateDisposed, inst.State())
	assert.Nil(t, inst.Scope())
	assert.Equal(t, []string{
		"plain PENDING->LOADING", "plain LOADING->ACTIVE",
		"plain ACTIVE->UNLOADING", "plain UNLOADING->DISPOSED",
	}, j.list())
	assert.ErrorIs(t, inst.Wait(t.Context()), host.ErrInactive)
}

// host §1.1: every mount is its own instance, and apply runs once per mount.
func TestAPluginAppliedTwiceIsTwoInstances(t *testing.T) {
	h := newHost(t)
	var j journal
	p := define("twice", func(_ context.Context, s *host.Scope) error {
		j.add("apply %s", s.Instance().ID())
		_, err := s.Effect("mark", j.effect(s.Instance().ID()))
		return err
	})
	a := mount(t, h, p, nil)
	b := mount(t, h, p, nil)
	c := mount(t, h, p, nil, host.ID("third"))
	assert.NotSame(t, a, b)
	assert.Equal(t, []string{"twice", "twice#2", "third"}, []string{a.ID(), b.ID(), c.ID()})
	assert.Equal(t, []string{"apply twice", "apply twice#2", "apply third"}, j.take())

	require.NoError(t, b.Dispose(t.Context()))
	assert.Equal(t, []string{"dispose twice#2"}, j.take(), "disposing one instance leaves the others")
	assert.Equal(t, host.StateActive, a.State())
	assert.Equal(t, host.StateActive, c.State())

	d := mount(t, h, p, nil)
	assert.Equal(t, "twice#2", d.ID(), "a disposed instance's ID is free again")

	_, err := h.Plugin(t.Context(), p, nil, host.ID("third"))
	assert.EqualError(t, err, `instance id "third" is already in use`)
}

// failingApply registers one of everything, then fails with err or panics
// with a value.
func failingApply(j *journal, ev *host.Notify[string], key *host.Key[string], child *host.Plugin, fail func() error) func(ctx context.Context, s *host.Scope) error {
	return func(ctx context.Context, s *host.Scope) error {
		if _, err := s.Effect("effect", j.effect("effect")); err != nil {
			return err
		}
		if _, err := ev.On(s, func(context.Context, string) error { j.add("listener ran"); return nil }); err != nil {
			return err
		}
		if _, err := key.Provide(s, "half-made"); err != nil {
			return err
		}
		if _, err := s.Plugin(ctx, child, nil); err != nil {
			return err
		}
		return fail()
	}
}

// host §6 item 2: apply returning an error or panicking gives FAILED, rolls
// back the partial registrations, names the plugin in the error returned by
// Wait, and leaves the parent and a sibling ACTIVE.
func TestFailingApplyRollsBack(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name string
		fail func() error
		err  string
	}{
		{"an error", func() error { return boom }, `plugin "failing": boom`},
		{"a panic", func() error { panic("kaput") }, `plugin "failing" panicked: kaput`},
		{"a panic with an error", func() error { panic(boom) }, `plugin "failing" panicked: boom`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			var j journal
			ev := host.NewNotify[string]("test/ping")
			key := host.NewKey[string]("half")
			child := define("grandchild", func(_ context.Context, s *host.Scope) error {
				_, err := s.Effect("grandchild", j.effect("grandchild"))
				return err
			})
			failing := define("failing", failingApply(&j, ev, key, child, tc.fail))
			sibling := define("sibling", func(context.Context, *host.Scope) error { return nil })
			var failed, sib *host.Instance
			parent := define("parent", func(ctx context.Context, s *host.Scope) error {
				var err error
				if sib, err = s.Plugin(ctx, sibling, nil); err != nil {
					return err
				}
				failed, err = s.Plugin(ctx, failing, nil)
				return err
			})
			base := hosttest.TakeBaseline(h)
			p := mount(t, h, parent, nil)

			assert.Equal(t, host.StateActive, p.State())
			assert.Equal(t, host.StateActive, sib.State())
			assert.Equal(t, host.StateFailed, failed.State())
			assert.EqualError(t, failed.Err(), tc.err)
			assert.EqualError(t, failed.Wait(t.Context()), tc.err)
			if tc.name != "a panic" {
				assert.ErrorIs(t, failed.Err(), boom)
			}
			if tc.name != "an error" {
				var pe *host.PanicError
				require.ErrorAs(t, failed.Err(), &pe)
				assert.Equal(t, `plugin "failing"`, pe.Site)
				assert.NotEmpty(t, pe.Stack)
			}
			assert.Nil(t, failed.Scope())
			assert.Equal(t, []string{"dispose grandchild", "dispose effect"}, j.take(), "rolled back newest first")
			require.NoError(t, ev.Emit(t.Context(), h.Root(), "ping"))
			assert.Empty(t, j.take(), "the rolled-back listener is gone")
			_, ok := key.Get(h.Root())
			assert.False(t, ok, "the rolled-back service is gone")
			// Live now: parent, sibling and the FAILED instance, each with its
			// mount effect on its parent; nothing of the failed apply remains.
			assert.Equal(t, host.Counts{Instances: 3, Effects: 3}, h.Counts())

			require.NoError(t, p.Dispose(t.Context()))
			assert.Equal(t, host.StateDisposed, failed.State())
			base.Assert(t)
		})
	}
}

// host §6 item 8: every instance ends DISPOSED, including those disposed
// while PENDING or FAILED.
func TestEveryInstanceEndsDisposed(t *testing.T) {
	missing := host.NewKey[int]("missing")
	pending := define("pending", func(context.Context, *host.Scope) error { return nil }, host.Inject(missing))
	failing := define("failing", func(context.Context, *host.Scope) error { return errors.New("no") })
	active := define("active", func(context.Context, *host.Scope) error { return nil })
	badConfig := samplePlugin(nil)

	t.Run("disposed one by one", func(t *testing.T) {
		h := newHost(t)
		var j journal
		watchStates(t, h, &j)
		p := mount(t, h, pending, nil)
		f := mount(t, h, failing, nil)
		c := mount(t, h, badConfig, sampleConfig{Limit: -1})
		require.Equal(t, host.StatePending, p.State())
		require.Equal(t, host.StateFailed, f.State())
		require.Equal(t, host.StateFailed, c.State())
		j.take()
		for _, inst := range []*host.Instance{p, f, c} {
			require.NoError(t, inst.Dispose(t.Context()))
			assert.Equal(t, host.StateDisposed, inst.State())
		}
		assert.Equal(t, []string{
			"pending PENDING->UNLOADING", "pending UNLOADING->DISPOSED",
			"failing FAILED->UNLOADING", "failing UNLOADING->DISPOSED",
			"cfg FAILED->UNLOADING", "cfg UNLOADING->DISPOSED",
		}, j.list())
		assert.ErrorIs(t, p.Wait(t.Context()), host.ErrInactive)
		assert.Equal(t, host.Counts{}, h.Counts())
	})
	t.Run("disposed by shutdown", func(t *testing.T) {
		h := newHost(t)
		insts := []*host.Instance{
			mount(t, h, pending, nil), mount(t, h, failing, nil),
			mount(t, h, active, nil), mount(t, h, badConfig, "not a mapping"),
		}
		require.NoError(t, h.Shutdown(t.Context()))
		for _, inst := range insts {
			assert.Equal(t, host.StateDisposed, inst.State(), inst.ID())
		}
		assert.Equal(t, host.Counts{}, h.Counts())
	})
}

// blockingApply is an apply that records its config and, on its first run
// only, signals started and waits for release; with fail set, that first run
// then fails.
type blockingApply struct {
	j       *journal
	started chan struct{}
	release chan struct{}
	inst    *host.Instance // set before started is closed
	runs    int
	fail    bool
	// rollback, when set, is closed by the first run's effect while the
	// failed load is being rolled back, which then waits for release2.
	rollback chan struct{}
	release2 chan struct{}
}

func newBlockingApply(j *journal) *blockingApply {
	return &blockingApply{j: j, started: make(chan struct{}), release: make(chan struct{})}
}

func (b *blockingApply) apply(_ context.Context, s *host.Scope, c sampleConfig) error {
	b.runs++
	run := b.runs
	b.j.add("apply %d", c.Limit)
	if _, err := s.Effect("config", func(context.Context) error {
		b.j.add("dispose config %d", c.Limit)
		if run == 1 && b.rollback != nil {
			close(b.rollback)
			<-b.release2
		}
		return nil
	}); err != nil {
		return err
	}
	if run == 1 {
		b.inst = s.Instance()
		close(b.started)
		<-b.release
		if b.fail {
			return errors.New("first load failed")
		}
	}
	return nil
}

// mountAsync mounts p with cfg on another goroutine; the returned channel
// is closed when the mount call returns.
func mountAsync(h *host.Host, p *host.Plugin, cfg any) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = h.Plugin(context.Background(), p, cfg)
	}()
	return done
}

// host §6 item 9 (Cordis #34): an Update during LOADING ends with the new
// config applied.
func TestUpdateDuringLoadingEndsWithTheNewConfig(t *testing.T) {
	h := newHost(t)
	var j journal
	b := newBlockingApply(&j)
	done := mountAsync(h, samplePlugin(b.apply), sampleConfig{Limit: 1})
	<-b.started
	require.Equal(t, host.StateLoading, b.inst.State())
	require.NoError(t, b.inst.Update(t.Context(), sampleConfig{Limit: 2}))
	assert.Equal(t, 2, b.inst.Config().(sampleConfig).Limit)
	close(b.release)
	<-done
	assert.Equal(t, host.StateActive, b.inst.State())
	assert.Equal(t, []string{"apply 1", "dispose config 1", "apply 2"}, j.list())
	assert.Equal(t, 2, b.inst.Config().(sampleConfig).Limit)
}

// host §6 item 9: an Update that arrives while a failed load is being rolled
// back (the instance still reports LOADING) is not lost either.
func TestUpdateDuringAFailedLoadsRollback(t *testing.T) {
	h := newHost(t)
	var j journal
	b := newBlockingApply(&j)
	b.fail = true
	b.rollback, b.release2 = make(chan struct{}), make(chan struct{})
	done := mountAsync(h, samplePlugin(b.apply), sampleConfig{Limit: 1})
	<-b.started
	close(b.release)
	<-b.rollback
	require.Equal(t, host.StateLoading, b.inst.State())
	require.NoError(t, b.inst.Update(t.Context(), sampleConfig{Limit: 2}))
	close(b.release2)
	<-done
	assert.Equal(t, host.StateActive, b.inst.State())
	assert.NoError(t, b.inst.Err())
	assert.Equal(t, []string{"apply 1", "dispose config 1", "apply 2"}, j.list())
}

// host §6 item 8: an instance disposed while its failed load is being rolled
// back still ends DISPOSED.
func TestDisposeDuringAFailedLoadsRollback(t *testing.T) {
	h := newHost(t)
	var j journal
	b := newBlockingApply(&j)
	b.fail = true
	b.rollback, b.release2 = make(chan struct{}), make(chan struct{})
	done := mountAsync(h, samplePlugin(b.apply), sampleConfig{Limit: 1})
	<-b.started
	close(b.release)
	<-b.rollback
	require.NoError(t, b.inst.Dispose(t.Context()))
	close(b.release2)
	<-done
	assert.Equal(t, host.StateDisposed, b.inst.State())
	assert.Equal(t, host.Counts{}, h.Counts())
}

// host §6 item 8: an instance disposed while LOADING is disposed as soon as
// its apply returns, and apply's registrations are undone.
func TestDisposeDuringLoading(t *testing.T) {
	h := newHost(t)
	var j journal
	watchStates(t, h, &j)
	b := newBlockingApply(&j)
	done := mountAsync(h, samplePlugin(b.apply), sampleConfig{Limit: 1})
	<-b.started
	require.NoError(t, b.inst.Dispose(t.Context()))
	close(b.release)
	<-done
	assert.Equal(t, host.StateDisposed, b.inst.State())
	assert.Equal(t, []string{
		"cfg PENDING->LOADING", "apply 1", "cfg LOADING->UNLOADING",
		"dispose config 1", "cfg UNLOADING->DISPOSED",
	}, j.list())
	assert.Equal(t, host.Counts{}, h.Counts())
}

// host §6 item 9 (Cordis #95): a dependency refresh does not re-run a FAILED
// instance; Update and Restart do.
func TestDependencyRefreshDoesNotRerunAFailedInstance(t *testing.T) {
	h := newHost(t)
	key := host.NewKey[string]("dep")
	provider := define("provider", func(_ context.Context, s *host.Scope) error {
		_, err := key.Provide(s, "v")
		return err
	})
	var runs []int
	consumer := host.Define("consumer", func(_ context.Context, s *host.Scope, c sampleConfig) error {
		runs = append(runs, c.Limit)
		if c.Limit == 0 {
			return errors.New("limit 0 is unusable")
		}
		return nil
	}, host.Inject(key), host.Defaults(defaultSample))

	p1 := mount(t, h, provider, nil)
	c := mount(t, h, consumer, sampleConfig{Limit: 0})
	require.Equal(t, host.StateFailed, c.State())
	require.EqualError(t, c.Err(), `plugin "consumer": limit 0 is unusable`)

	require.NoError(t, p1.Dispose(t.Context()))
	assert.Equal(t, host.StateFailed, c.State(), "a provider going away leaves a FAILED instance alone")
	p2 := mount(t, h, provider, nil)
	require.Equal(t, host.StateActive, p2.State())
	assert.Equal(t, host.StateFailed, c.State(), "a provider coming back does not re-run a FAILED instance")
	assert.Equal(t, []int{0}, runs)

	require.NoError(t, c.Restart(t.Context()))
	assert.Equal(t, host.StateFailed, c.State(), "Restart re-runs it (and it fails again)")
	assert.Equal(t, []int{0, 0}, runs)

	require.NoError(t, c.Update(t.Context(), sampleConfig{Limit: 3}))
	assert.Equal(t, host.StateActive, c.State(), "Update re-runs it")
	assert.NoError(t, c.Err())
	assert.Equal(t, []int{0, 0, 3}, runs)
}

func TestRestartReappliesTheCurrentConfig(t *testing.T) {
	h := newHost(t)
	var j journal
	p := samplePlugin(func(_ context.Context, s *host.Scope, c sampleConfig) error {
		j.add("apply %d", c.Limit)
		_, err := s.Effect("config", j.effect("config"))
		return err
	})
	inst := mount(t, h, p, sampleConfig{Limit: 4})
	require.NoError(t, inst.Restart(t.Context()))
	assert.Equal(t, host.StateActive, inst.State())
	assert.Equal(t, []string{"apply 4", "dispose config", "apply 4"}, j.list())

	require.NoError(t, inst.Dispose(t.Context()))
	assert.ErrorIs(t, inst.Restart(t.Context()), host.ErrInactive)
	assert.ErrorIs(t, inst.Update(t.Context(), nil), host.ErrInactive)
}

// host §3.6: Wait blocks until ACTIVE, FAILED or DISPOSED; when its ctx ends
// first on a PENDING instance it names the missing services.
func TestWaitOnAPendingInstance(t *testing.T) {
	h := newHost(t)
	a, b := host.NewKey[int]("alpha"), host.NewKey[int]("beta")
	inst := mount(t, h, define("waiter", func(context.Context, *host.Scope) error { return nil }, host.Inject(a, b)), nil)
	require.Equal(t, host.StatePending, inst.State())
	assert.Equal(t, []string{"alpha", "beta"}, inst.Missing())
	assert.NoError(t, inst.Err(), "waiting is not an error")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := inst.Wait(ctx)
	assert.EqualError(t, err, "context canceled\n\"waiter\" is waiting for services \"alpha\", \"beta\"")
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, host.ErrMissingServices)
	var me *host.MissingServicesError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "waiter", me.Instance)
	assert.Equal(t, []string{"alpha", "beta"}, me.Keys)

	waited := make(chan error, 1)
	go func() { waited <- inst.Wait(context.Background()) }()
	mount(t, h, define("alpha", func(_ context.Context, s *host.Scope) error {
		_, err := a.Provide(s, 1)
		return err
	}), nil)
	assert.Equal(t, host.StatePending, inst.State())
	assert.Equal(t, []string{"beta"}, inst.Missing(), "only what is still missing")
	assert.Equal(t, []string{"beta"}, h.Snapshot()[0].Missing)
	mount(t, h, define("beta", func(_ context.Context, s *host.Scope) error {
		_, err := b.Provide(s, 2)
		return err
	}), nil)
	select {
	case err := <-waited:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return when the instance became ACTIVE")
	}
	assert.Empty(t, inst.Missing())
}

// Shutdown while a plugin is still loading waits for its apply and reports
// the load's failure (host.Shutdown's doc).
func TestShutdownWaitsForALoadAndReportsItsError(t *testing.T) {
	h := newHost(t)
	var j journal
	b := newBlockingApply(&j)
	b.fail = true
	done := mountAsync(h, samplePlugin(b.apply), sampleConfig{Limit: 1})
	select {
	case <-b.started:
	case <-time.After(5 * time.Second):
		t.Fatal("apply never started: ", b.inst.Err())
	}
	shut := make(chan error, 1)
	go func() { shut <- h.Shutdown(context.Background()) }()
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned while apply was running: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(b.release)
	<-done
	select {
	case err := <-shut:
		assert.ErrorContains(t, err, "first load failed")
	case <-time.After(5 * time.Second):
		t.Fatal("Shutdown never returned")
	}
	assert.Equal(t, host.StateDisposed, b.inst.State())
}
