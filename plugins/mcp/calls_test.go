package mcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
	"github.com/dsh-go/dsh/plugins/tools"
)

// limited is a stack whose server runs at most one call at once, each
// under 300 ms, with a tool `block` that waits for its context (or, with
// {"ignore": true}, ignores it for 2 s).
func limited(t *testing.T) (*stack, chan struct{}) {
	t.Helper()
	st := stacktest.New(t, stacktest.Options{})
	srv, err := mcpserver.New(st.Host.Root(), st.Registry, mcpserver.Options{Name: "test", Version: "1",
		Cwd: func() string { return st.W }, MaxInFlight: 1, CallTimeout: 300 * time.Millisecond})
	require.NoError(t, err)
	started := make(chan struct{}, 4)
	_, err = st.Registry.Register(st.Host.Root(), tools.Tool{Name: "block",
		Parameters: []byte(`{"type":"object","properties":{"ignore":{"type":"boolean"}}}`),
		Execute: func(ctx context.Context, args tools.Args, _ *tools.Exec) (any, error) {
			started <- struct{}{}
			if args["ignore"] == true {
				time.Sleep(2 * time.Second)
				return "done", nil
			}
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	require.NoError(t, err)
	return &stack{Stack: st, srv: srv, changed: make(chan struct{}, 16)}, started
}

func TestACallOverTheTimeoutIsAnsweredAsSuch(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		s, _ := limited(t)
		cs := s.connect(t)
		start := time.Now()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "block", Arguments: map[string]any{"ignore": ignore}})
		require.NoError(t, err)
		assert.Less(t, time.Since(start), 1500*time.Millisecond, "answered at the timeout, even when the body ignores it")
		assert.True(t, res.IsError)
		assert.Equal(t, "Error: tool call timed out after 300 ms", res.Content[0].(*mcp.TextContent).Text)
		assert.Equal(t, map[string]any{"name": "TimeoutError", "code": "TIMEOUT"}, res.Meta["error"])
	}
}

func TestACallCancelledWhileWaitingIsAbortedBeforeDispatch(t *testing.T) {
	s, started := limited(t)
	cs := s.connect(t)
	first := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
		first <- res
	}()
	<-started // the only slot is taken

	// The second waits; its client cancels it (notifications/cancelled).
	// The SDK client returns at once, so the server's answer is observed
	// through a third call that proves the slot was never given away.
	ctx, cancel := context.WithCancel(t.Context())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
	assert.ErrorIs(t, err, context.Canceled)
	select {
	case <-started:
		t.Fatal("a cancelled waiting call ran its body")
	case <-time.After(100 * time.Millisecond):
	}
	res := <-first
	assert.Equal(t, "Error: tool call timed out after 300 ms", res.Content[0].(*mcp.TextContent).Text)
}
