package host_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// host §3.6, contract §1.2: an OnDispatch hook sees every dispatch (Emit,
// Waterfall, First, Parallel) before any listener runs; its error fails the
// dispatch and no listener runs; removing it restores plain dispatch.
func TestOnDispatch(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	notify := host.NewNotify[int]("test/notify")
	chain := host.NewChain[int, int]("test/chain")
	first := host.NewFirst[int, int]("test/first")
	parallel := host.NewParallel[int]("test/parallel")
	var j journal
	on(t, notify, s, record[int](&j, "notify listener"))
	chainOn(t, chain, s, func(ctx context.Context, _ int, next host.Next[int]) (int, error) {
		j.add("chain listener")
		return next(ctx)
	})
	_, err := first.On(s, func(context.Context, int) (int, bool, error) { j.add("first listener"); return 1, true, nil })
	require.NoError(t, err)
	_, err = parallel.On(s, func(context.Context, int) error { j.add("parallel listener"); return nil })
	require.NoError(t, err)

	veto := errors.New("invariant broken")
	off := h.OnDispatch(func(_ context.Context, event string, payload any) error {
		j.add("hook %s %v", event, payload)
		if payload.(int) < 0 {
			return veto
		}
		return nil
	})
	dispatchAll := func(n int) []error {
		_, cerr := chain.Waterfall(t.Context(), s, n, func(context.Context) (int, error) { return 0, nil })
		_, _, ferr := first.Dispatch(t.Context(), s, n)
		return []error{notify.Emit(t.Context(), s, n), cerr, ferr, parallel.Dispatch(t.Context(), s, n)}
	}
	for _, err := range dispatchAll(1) {
		assert.NoError(t, err)
	}
	assert.Equal(t, []string{
		"hook test/chain 1", "chain listener", "hook test/first 1", "first listener",
		"hook test/notify 1", "notify listener", "hook test/parallel 1", "parallel listener",
	}, j.take())
	for _, err := range dispatchAll(-1) {
		assert.Same(t, veto, err)
	}
	assert.Equal(t, []string{"hook test/chain -1", "hook test/first -1", "hook test/notify -1", "hook test/parallel -1"}, j.take(),
		"a vetoed dispatch runs no listener")

	require.NoError(t, off(t.Context()))
	dispatchAll(-1)
	assert.Equal(t, []string{"chain listener", "first listener", "notify listener", "parallel listener"}, j.take())
}

func TestAPanickingDispatchHookFailsTheDispatch(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	ev := host.NewNotify[int]("test/notify")
	ran := false
	on(t, ev, s, func(context.Context, int) error { ran = true; return nil })
	h.OnDispatch(func(context.Context, string, any) error { panic("checker bug") })
	assert.EqualError(t, ev.Emit(t.Context(), s, 1), "dispatch hook panicked: checker bug")
	assert.False(t, ran)
}
