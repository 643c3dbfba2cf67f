package host_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
)

// store is the service type of these tests.
type store struct{ name string }

var storeKey = host.NewKey[*store]("store")

// storeProvider provides a *store called name and records its teardown.
func storeProvider(j *journal, name string) *host.Plugin {
	return define("provider-"+name, func(_ context.Context, s *host.Scope) error {
		if _, err := s.Effect("provider before", func(context.Context) error {
			v, ok := storeKey.Get(s)
			j.add("dispose provider %s before (sees %s, %t)", name, nameOf(v), ok)
			return nil
		}); err != nil {
			return err
		}
		if _, err := storeKey.Provide(s, &store{name: name}); err != nil {
			return err
		}
		_, err := s.Effect("provider after", func(context.Context) error {
			v, ok := storeKey.Get(s)
			j.add("dispose provider %s after (sees %s, %t)", name, nameOf(v), ok)
			return nil
		})
		return err
	})
}

func nameOf(s *store) string {
	if s == nil {
		return "nothing"
	}
	return s.name
}

// storeConsumer injects the store and records which one each activation
// got.
func storeConsumer(j *journal, name string) *host.Plugin {
	return define(name, func(_ context.Context, s *host.Scope) error {
		v := storeKey.Must(s)
		j.add("apply %s with %s", name, v.name)
		_, err := s.Effect("consumer", j.effect(name+" of "+v.name))
		return err
	}, host.Inject(storeKey))
}

func TestProvideGetAndMust(t *testing.T) {
	h := newHost(t)
	var j journal
	_, ok := storeKey.Get(h.Root())
	assert.False(t, ok)
	assert.PanicsWithValue(t, `host: service "store" is not available to "root"; declare it with Inject`, func() { storeKey.Must(h.Root()) })
	assert.Equal(t, "store", storeKey.Name())

	var duringApply []string
	provider := define("provider", func(_ context.Context, s *host.Scope) error {
		if _, err := storeKey.Provide(s, &store{name: "a"}); err != nil {
			return err
		}
		_, self := storeKey.Get(s)
		_, others := storeKey.Get(h.Root())
		duringApply = append(duringApply, "self", boolWord(self), "others", boolWord(others))
		return nil
	})
	inst := mount(t, h, provider, nil)
	assert.Equal(t, []string{"self", "yes", "others", "no"}, duringApply,
		"a service is visible to others only once its provider is ACTIVE (host §1.2)")
	v, ok := storeKey.Get(h.Root())
	require.True(t, ok)
	assert.Equal(t, "a", v.name)
	assert.Equal(t, "a", storeKey.Must(h.Root()).name)
	assert.Equal(t, 1, h.Counts().Services)
	require.NoError(t, inst.Dispose(t.Context()))
	_, ok = storeKey.Get(h.Root())
	assert.False(t, ok)
	assert.Empty(t, j.list())
}

func boolWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// host §6 item 4: a consumer stays PENDING until its provider is ACTIVE,
// even when the provider's apply is slow; mount order does not matter.
func TestConsumersWaitForTheirProviderInAnyOrder(t *testing.T) {
	t.Run("consumer first", func(t *testing.T) {
		h := newHost(t)
		var j journal
		c := mount(t, h, storeConsumer(&j, "consumer"), nil)
		assert.Equal(t, host.StatePending, c.State())
		assert.Equal(t, []string{"store"}, c.Missing())
		assert.NoError(t, c.Err())
		mount(t, h, storeProvider(&j, "a"), nil)
		assert.Equal(t, host.StateActive, c.State())
		assert.Equal(t, []string{"apply consumer with a"}, j.list())
	})
	t.Run("provider first", func(t *testing.T) {
		h := newHost(t)
		var j journal
		mount(t, h, storeProvider(&j, "a"), nil)
		c := mount(t, h, storeConsumer(&j, "consumer"), nil)
		assert.Equal(t, host.StateActive, c.State())
		assert.Equal(t, []string{"apply consumer with a"}, j.list())
	})
	t.Run("a consumer mounted during a slow provider apply", func(t *testing.T) {
		h := newHost(t)
		var j journal
		started, release := make(chan struct{}), make(chan struct{})
		slow := define("slow", func(_ context.Context, s *host.Scope) error {
			if _, err := storeKey.Provide(s, &store{name: "slow"}); err != nil {
				return err
			}
			close(started)
			<-release
			j.add("slow provider ready")
			return nil
		})
		done := mountAsync(h, slow, nil)
		<-started
		c := mount(t, h, storeConsumer(&j, "consumer"), nil)
		assert.Equal(t, host.StatePending, c.State(), "the provider is LOADING: its service is not visible yet")
		assert.Equal(t, []string{"store"}, c.Missing())
		close(release)
		<-done
		waitActive(t, c)
		assert.Equal(t, []string{"slow provider ready", "apply consumer with slow"}, j.list())
	})
}

// host §6 item 5: provider removal unloads dependents before the provider's
// own disposers run; they return to PENDING and revive with a new provider.
func TestProviderRemovalUnloadsDependentsFirst(t *testing.T) {
	h := newHost(t)
	var j journal
	var states journal
	watchStates(t, h, &states)
	pa := mount(t, h, storeProvider(&j, "a"), nil)
	c1 := mount(t, h, storeConsumer(&j, "c1"), nil)
	c2 := mount(t, h, storeConsumer(&j, "c2"), nil)
	require.Equal(t, []string{"apply c1 with a", "apply c2 with a"}, j.take())
	states.take()

	require.NoError(t, pa.Dispose(t.Context()))
	assert.Equal(t, []string{
		"dispose c2 of a",
		"dispose c1 of a",
		"dispose provider a after (sees a, true)",
		"dispose provider a before (sees nothing, false)",
	}, j.take(), "dependents first, newest first; the provider reads its service until it is withdrawn")
	assert.Equal(t, []string{
		"provider-a ACTIVE->UNLOADING",
		"c2 ACTIVE->UNLOADING", "c2 UNLOADING->PENDING",
		"c1 ACTIVE->UNLOADING", "c1 UNLOADING->PENDING",
		"provider-a UNLOADING->DISPOSED",
	}, states.take())
	assert.Equal(t, host.StatePending, c1.State())
	assert.Equal(t, host.StatePending, c2.State())
	assert.Equal(t, []string{"store"}, c1.Missing())

	mount(t, h, storeProvider(&j, "b"), nil)
	assert.Equal(t, host.StateActive, c1.State())
	assert.Equal(t, host.StateActive, c2.State())
	assert.Equal(t, []string{"apply c1 with b", "apply c2 with b"}, j.take(), "they revive with the new provider")
}

// host §1.2: the cascade is transitive; a dependent's dependents unload
// before it does.
func TestTheDisposeCascadeIsTransitive(t *testing.T) {
	h := newHost(t)
	var j journal
	middleKey := host.NewKey[string]("middle")
	middle := define("middle", func(_ context.Context, s *host.Scope) error {
		if _, err := s.Effect("middle", j.effect("middle")); err != nil {
			return err
		}
		_, err := middleKey.Provide(s, storeKey.Must(s).name+"+middle")
		return err
	}, host.Inject(storeKey))
	top := define("top", func(_ context.Context, s *host.Scope) error {
		j.add("apply top with %s", middleKey.Must(s))
		_, err := s.Effect("top", j.effect("top"))
		return err
	}, host.Inject(middleKey))
	tp := mount(t, h, top, nil)
	md := mount(t, h, middle, nil)
	pa := mount(t, h, storeProvider(&j, "a"), nil)
	require.Equal(t, host.StateActive, tp.State())
	require.Equal(t, []string{"apply top with a+middle"}, j.take())
	assert.Equal(t, []string{md.ID(), tp.ID()}, pa.Dependents(), "what a dispose of the provider unloads, nearest first")
	assert.Empty(t, tp.Dependents())

	require.NoError(t, pa.Dispose(t.Context()))
	assert.Equal(t, []string{
		"dispose top", "dispose middle",
		"dispose provider a after (sees a, true)", "dispose provider a before (sees nothing, false)",
	}, j.take())
	assert.Equal(t, host.StatePending, md.State())
	assert.Equal(t, host.StatePending, tp.State())
	assert.Equal(t, []string{"middle"}, tp.Missing())

	mount(t, h, storeProvider(&j, "b"), nil)
	assert.Equal(t, host.StateActive, tp.State())
	assert.Equal(t, []string{"apply top with b+middle"}, j.take())
}

// host §1.2: withdrawing a service with its Disposer unloads its dependents
// to PENDING while the provider stays ACTIVE.
func TestWithdrawingAServiceUnloadsItsDependents(t *testing.T) {
	h := newHost(t)
	var j journal
	var withdraw host.Disposer
	provider := mount(t, h, define("provider", func(_ context.Context, s *host.Scope) error {
		var err error
		withdraw, err = storeKey.Provide(s, &store{name: "a"})
		return err
	}), nil)
	c := mount(t, h, storeConsumer(&j, "consumer"), nil)
	require.Equal(t, host.StateActive, c.State())
	require.NoError(t, withdraw(t.Context()))
	assert.Equal(t, host.StatePending, c.State())
	assert.Equal(t, host.StateActive, provider.State())
	assert.Equal(t, 0, h.Counts().Services)
	assert.Equal(t, []string{"apply consumer with a", "dispose consumer of a"}, j.list())
}

// host §6 item 6: a duplicate service in the same realm fails with
// ErrDuplicateService; the first provider and its consumers are unaffected.
func TestADuplicateServiceFails(t *testing.T) {
	h := newHost(t)
	var j journal
	first := mount(t, h, storeProvider(&j, "a"), nil)
	c := mount(t, h, storeConsumer(&j, "consumer"), nil)
	second := mount(t, h, storeProvider(&j, "b"), nil)

	assert.Equal(t, host.StateFailed, second.State())
	err := second.Err()
	assert.EqualError(t, err, `plugin "provider-b": service "store" is already provided by "provider-a"`)
	assert.ErrorIs(t, err, host.ErrDuplicateService)
	var de *host.DuplicateServiceError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, host.DuplicateServiceError{Key: "store", Existing: "provider-a"}, *de)

	assert.Equal(t, host.StateActive, first.State())
	assert.Equal(t, host.StateActive, c.State())
	assert.Equal(t, "a", storeKey.Must(h.Root()).name)
	assert.Equal(t, []string{
		"apply consumer with a",
		"dispose provider b before (sees a, true)", // the rollback of the second provider
	}, j.list(), "the consumer was not restarted")
}

// host §6 item 11, §3.2: an optional dependency never gates activation;
// Optional is probed at use and never restarts the instance.
func TestOptionalNeverGatesActivation(t *testing.T) {
	h := newHost(t)
	var j journal
	var scope *host.Scope
	prober := mount(t, h, define("prober", func(_ context.Context, s *host.Scope) error {
		scope = s
		j.add("apply prober")
		return nil
	}, host.Optional(storeKey)), nil)
	assert.Equal(t, host.StateActive, prober.State())
	_, ok := storeKey.Get(scope)
	assert.False(t, ok)

	pa := mount(t, h, storeProvider(&j, "a"), nil)
	v, ok := storeKey.Get(scope)
	require.True(t, ok, "probed at use")
	assert.Equal(t, "a", v.name)
	require.NoError(t, pa.Dispose(t.Context()))
	_, ok = storeKey.Get(scope)
	assert.False(t, ok)
	assert.Equal(t, host.StateActive, prober.State())
	assert.Equal(t, []string{
		"apply prober",
		"dispose provider a after (sees a, true)", "dispose provider a before (sees nothing, false)",
	}, j.list(), "its presence changes never restarted the prober")
}

// host §6 item 11: a With sub-plugin exists exactly while its keys do.
func TestWithExistsExactlyWhileItsKeysDo(t *testing.T) {
	h := newHost(t)
	var j journal
	a, b := host.NewKey[string]("a"), host.NewKey[string]("b")
	ev := host.NewNotify[string]("test/with")
	var sub *host.Instance
	owner := mount(t, h, define("owner", func(ctx context.Context, s *host.Scope) error {
		var err error
		sub, err = s.With(ctx, "owner/with-ab", []host.ServiceKey{a, b}, func(_ context.Context, sub *host.Scope) error {
			j.add("with sees %s and %s", a.Must(sub), b.Must(sub))
			_, err := ev.On(sub, func(context.Context, string) error { return nil })
			return err
		})
		return err
	}), nil)
	base := hosttest.TakeBaseline(h)
	assert.Equal(t, host.StatePending, sub.State())
	assert.Equal(t, []string{"a", "b"}, sub.Missing())

	provide := func(k *host.Key[string], v string) *host.Instance {
		return mount(t, h, define("provide-"+k.Name(), func(_ context.Context, s *host.Scope) error {
			_, err := k.Provide(s, v)
			return err
		}), nil)
	}
	pa := provide(a, "a1")
	assert.Equal(t, host.StatePending, sub.State(), "one key of two is not enough")
	pb := provide(b, "b1")
	assert.Equal(t, host.StateActive, sub.State())
	assert.Equal(t, base.Counts().Listeners+1, h.Counts().Listeners)

	require.NoError(t, pa.Dispose(t.Context()))
	assert.Equal(t, host.StatePending, sub.State(), "withdrawn when a key goes away")
	assert.Equal(t, base.Counts().Listeners, h.Counts().Listeners)

	provide(a, "a2")
	assert.Equal(t, host.StateActive, sub.State())
	assert.Equal(t, []string{"with sees a1 and b1", "with sees a2 and b1"}, j.list())

	require.NoError(t, owner.Dispose(t.Context()))
	assert.Equal(t, host.StateDisposed, sub.State())
	assert.Equal(t, host.StateActive, pb.State())
}
