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

// TestATimeoutIsAnsweredEvenWhenTheToolIgnoresIt: a tool that ignores
// its context still gets the timeout answer at the timeout (its slot stays
// taken until it returns); limits_test.go has the well-behaved case.
func TestATimeoutIsAnsweredEvenWhenTheToolIgnoresIt(t *testing.T) {
	s, _ := limited(t)
	cs := s.connect(t)
	start := time.Now()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "block", Arguments: map[string]any{"ignore": true}})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 1500*time.Millisecond, "answered at the timeout, not when the body returns (2 s)")
	assert.True(t, res.IsError)
	assert.Equal(t, "Error: tool call timed out after 300 ms", res.Content[0].(*mcp.TextContent).Text)
	assert.Equal(t, map[string]any{"name": "TimeoutError", "code": "TIMEOUT"}, res.Meta["error"])
}
