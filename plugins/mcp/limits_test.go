package mcp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
	"github.com/dsh-go/dsh/plugins/tools"
)

// limitedStack is the default deployment plus a tool "wait" that blocks
// until its context ends or release is closed, behind a server with opts.
func limitedStack(t *testing.T, opts mcpserver.Options) (*stack, chan struct{}, chan struct{}) {
	t.Helper()
	st := stacktest.New(t, stacktest.Options{})
	started, release := make(chan struct{}, 16), make(chan struct{})
	_, err := st.Registry.Register(st.Host.Root(), tools.Tool{Name: "wait", Parameters: json.RawMessage(`{"type":"object"}`),
		Execute: func(ctx context.Context, _ tools.Args, _ *tools.Exec) (any, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-release:
				return "done", nil
			}
		},
		Render: func(_ tools.Args, v any) []tools.Block { return []tools.Block{tools.TextBlock(v.(string))} },
	})
	require.NoError(t, err)
	opts.Name, opts.Version, opts.Cwd = "test", "1", func() string { return st.W }
	srv, err := mcpserver.New(st.Host.Root(), st.Registry, opts)
	require.NoError(t, err)
	return &stack{Stack: st, srv: srv, changed: make(chan struct{}, 16)}, started, release
}

// TestACallThatRunsOutOfTimeIsATimeoutError: past CallTimeout the call's
// context is cancelled and the result says so, with its code (issue 12).
func TestACallThatRunsOutOfTimeIsATimeoutError(t *testing.T) {
	s, _, _ := limitedStack(t, mcpserver.Options{CallTimeout: 50 * time.Millisecond})
	cs := s.connect(t)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, "Error: tool call timed out after 50 ms", res.Content[0].(*mcp.TextContent).Text)
	assert.Equal(t, map[string]any{"name": "TimeoutError", "code": "TIMEOUT"}, res.Meta["error"])
}

// TestCallsBeyondMaxInFlightWait: with one slot, a second call waits for
// the first; cancelled while waiting, it is aborted before dispatch and its
// body never runs.
func TestCallsBeyondMaxInFlightWait(t *testing.T) {
	s, started, release := limitedStack(t, mcpserver.Options{MaxInFlight: 1})
	cs := s.connect(t)
	first := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		if err == nil {
			first <- res
		}
		close(first)
	}()
	<-started // the first call holds the only slot

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
	assert.Error(t, err, "the client gave up while the call waited for a slot")
	select {
	case <-started:
		t.Fatal("the waiting call's body ran")
	default:
	}

	close(release)
	res := <-first
	require.NotNil(t, res)
	assert.Equal(t, "done", res.Content[0].(*mcp.TextContent).Text)
	// The slot is free again: a new call runs.
	res2, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, "done", res2.Content[0].(*mcp.TextContent).Text)
}
