package tools_test

import (
	"context"
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
