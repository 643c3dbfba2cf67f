package mcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/tools"
)

// TestAWaitingCallCancelledIsAbortedBeforeDispatch: the registry answers a
// call whose context ended while it waited for a slot, and runs nothing.
func TestAWaitingCallCancelledIsAbortedBeforeDispatch(t *testing.T) {
	h := host.New()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	reg := tools.NewRegistry()
	ran := 0
	_, err := reg.Register(h.Root(), tools.Tool{Name: "t", Parameters: json.RawMessage(`{"type":"object"}`),
		Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) { ran++; return "ok", nil }})
	require.NoError(t, err)

	l := newCallLimits(1, time.Minute)
	l.limit.Load().slots <- struct{}{} // the only slot is taken
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan tools.Result, 1)
	go func() {
		done <- runAnswered(l, ctx, func(ctx context.Context) tools.Result { return reg.Execute(ctx, "t", nil, nil) })
	}()
	cancel()
	res := <-done
	assert.Equal(t, "Error: tool call aborted before dispatch", res.Text())
	assert.Equal(t, "ABORTED_BEFORE_DISPATCH", res.Code())
	assert.Zero(t, ran)

	<-l.limit.Load().slots
	res = runAnswered(l, t.Context(), func(ctx context.Context) tools.Result { return reg.Execute(ctx, "t", nil, nil) })
	assert.False(t, res.IsError)
	assert.Equal(t, 1, ran)
	assert.Empty(t, l.limit.Load().slots, "the slot is given back")
}

func TestCallLimitsDefaults(t *testing.T) {
	l := newCallLimits(0, 0)
	assert.Equal(t, DefaultMaxInFlight, cap(l.limit.Load().slots))
	assert.Equal(t, DefaultCallTimeout, l.limit.Load().timeout)
}

// runAnswered runs body under l on a goroutine of its own and returns the
// answer runThen gives, as Server.execute waits for it.
func runAnswered(l *callLimits, ctx context.Context, body func(ctx context.Context) tools.Result) tools.Result {
	answered := make(chan tools.Result, 1)
	go l.runThen(ctx, body, func(res tools.Result) { answered <- res })
	return <-answered
}
