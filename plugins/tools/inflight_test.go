package tools_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/tools"
)

// A plugin whose tools are removed (unloaded, swapped by a config reload)
// lets its calls in flight finish first, and a call arriving meanwhile
// finds no tool rather than running on a plugin that is going away.
func TestRemovingAToolWaitsForItsCallsInFlight(t *testing.T) {
	reg, root := newRegistry(t)
	started, release := make(chan struct{}), make(chan struct{})
	p := host.Define("slow", func(_ context.Context, s *host.Scope, _ struct{}) error {
		_, err := reg.Register(s, tools.Tool{Name: "slow", Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) {
			close(started)
			<-release
			return "done", nil
		}})
		return err
	})
	inst, err := root.Plugin(t.Context(), p, nil)
	require.NoError(t, err)

	result := make(chan tools.Result, 1)
	go func() { result <- reg.Execute(context.Background(), "slow", nil, nil) }()
	<-started
	disposed := make(chan error, 1)
	go func() { disposed <- inst.Dispose(context.Background()) }()
	require.Eventually(t, func() bool { _, ok := reg.Lookup("slow"); return !ok }, 5*time.Second, time.Millisecond)
	select {
	case <-disposed:
		t.Fatal("the dispose did not wait for the call in flight")
	case <-time.After(20 * time.Millisecond):
	}
	assert.Equal(t, host.StateUnloading, inst.State())
	assert.Equal(t, `Error: unknown tool "slow"`, reg.Execute(context.Background(), "slow", nil, nil).Text())

	close(release)
	require.NoError(t, <-disposed)
	assert.Equal(t, "done", (<-result).Value, "the call in flight finished with its result")
	assert.Equal(t, host.StateDisposed, inst.State())
}

// The wait is bounded by the host's dispose timeout.
func TestTheWaitForCallsInFlightIsBounded(t *testing.T) {
	h := host.New(host.WithDisposeTimeout(50 * time.Millisecond))
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	_, err := h.Plugin(t.Context(), tools.Plugin, nil)
	require.NoError(t, err)
	reg, _ := tools.Key.Get(h.Root())
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	p := host.Define("stuck", func(_ context.Context, s *host.Scope, _ struct{}) error {
		_, err := reg.Register(s, tools.Tool{Name: "stuck", Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) {
			close(started)
			<-release
			return nil, nil
		}})
		return err
	})
	inst, err := h.Plugin(t.Context(), p, nil)
	require.NoError(t, err)
	go reg.Execute(context.Background(), "stuck", nil, nil)
	<-started
	err = inst.Dispose(context.Background())
	assert.EqualError(t, err, `disposer "tool(\"stuck\")" timed out after 50ms`)
	assert.Equal(t, host.StateDisposed, inst.State())
}

// At the dispose timeout the calls still running are cancelled: their
// context ends, so a body that honours it returns: calls in flight are
// waited for, then cancelled.
func TestTheDrainCancelsTheCallsLeftAtTheTimeout(t *testing.T) {
	h := host.New(host.WithDisposeTimeout(50 * time.Millisecond))
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	_, err := h.Plugin(t.Context(), tools.Plugin, nil)
	require.NoError(t, err)
	reg, _ := tools.Key.Get(h.Root())
	started := make(chan struct{})
	p := host.Define("patient", func(_ context.Context, s *host.Scope, _ struct{}) error {
		_, err := reg.Register(s, tools.Tool{Name: "patient", Execute: func(ctx context.Context, _ tools.Args, _ *tools.Exec) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}})
		return err
	})
	inst, err := h.Plugin(t.Context(), p, nil)
	require.NoError(t, err)
	result := make(chan tools.Result, 1)
	go func() { result <- reg.Execute(context.Background(), "patient", nil, nil) }()
	<-started
	assert.Error(t, inst.Dispose(context.Background()), "the call outlived the dispose timeout")
	select {
	case res := <-result:
		assert.True(t, res.IsError)
		assert.Equal(t, "Error: context canceled", res.Text())
	case <-time.After(5 * time.Second):
		t.Fatal("the call's context was not cancelled at the dispose timeout")
	}
}

// A service handed to a call is leased for that call: disposing the
// service's provider first unloads the plugins that inject it, whose tools
// wait for their calls in flight, so the provider's own teardown runs only
// after the call has returned: a provider restart never runs a call on a
// closed provider.
func TestAProviderIsDisposedOnlyAfterTheCallsUsingIt(t *testing.T) {
	reg, root := newRegistry(t)
	type store struct{ closed bool }
	key := host.NewKey[*store]("store")
	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	provider := host.Define("provider", func(_ context.Context, s *host.Scope, _ struct{}) error {
		st := &store{}
		s.Effect("close store", func(context.Context) error { note("provider closed"); st.closed = true; return nil })
		_, err := key.Provide(s, st)
		return err
	})
	started, release := make(chan struct{}), make(chan struct{})
	user := host.Define("user", func(_ context.Context, s *host.Scope, _ struct{}) error {
		st := key.Must(s)
		_, err := reg.Register(s, tools.Tool{Name: "use", Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) {
			close(started)
			<-release
			if st.closed {
				return nil, errors.New("ran on a closed provider")
			}
			note("call returned")
			return "ok", nil
		}})
		return err
	}, host.Inject(key))
	pinst, err := root.Plugin(t.Context(), provider, nil)
	require.NoError(t, err)
	_, err = root.Plugin(t.Context(), user, nil)
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := reg.Lookup("use"); return ok }, 5*time.Second, time.Millisecond)

	result := make(chan tools.Result, 1)
	go func() { result <- reg.Execute(context.Background(), "use", nil, nil) }()
	<-started
	disposed := make(chan error, 1)
	go func() { disposed <- pinst.Dispose(context.Background()) }()
	select {
	case <-disposed:
		t.Fatal("the provider was disposed while a call using it ran")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-disposed)
	res := <-result
	assert.False(t, res.IsError, res.Text())
	assert.Equal(t, []string{"call returned", "provider closed"}, order)
}
