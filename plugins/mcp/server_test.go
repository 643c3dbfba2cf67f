package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fslocal"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
	"github.com/dsh-go/dsh/plugins/tools"
)

// stack is the default deployment (stacktest) behind one MCP server.
type stack struct {
	*stacktest.Stack
	srv     *mcpserver.Server
	changed chan struct{}
}

func newStack(t *testing.T) *stack {
	t.Helper()
	st := stacktest.New(t, stacktest.Options{})
	srv, err := mcpserver.New(st.Host.Root(), st.Registry, mcpserver.Options{Name: "test", Version: "1", Cwd: func() string { return st.W }})
	require.NoError(t, err)
	return &stack{Stack: st, srv: srv, changed: make(chan struct{}, 16)}
}

// connect opens one more MCP session on the same server.
func (s *stack) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.srv.MCP().Connect(t.Context(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(t.Context(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// TestTwoSessionsHaveTheirOwnObservations: on ONE server, a file read by
// one session cannot be edited by the other (contract §4).
func TestTwoSessionsHaveTheirOwnObservations(t *testing.T) {
	s := newStack(t)
	assertIsolated(t, s, s.connect(t), s.connect(t))
}

// assertIsolated checks on a and b, two sessions of s's server, that a read
// by a does not let b edit, and that a can.
func assertIsolated(t *testing.T, s *stack, a, b *mcp.ClientSession) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "a.txt"), []byte("hello world\n"), 0o644))
	_, isErr := call(t, a, "read", map[string]any{"file_path": "a.txt"})
	require.False(t, isErr)
	text, isErr := call(t, b, "edit", map[string]any{"file_path": "a.txt", "old_string": "world", "new_string": "there"})
	assert.True(t, isErr)
	assert.Equal(t, `Error: edit requires reading "`+s.W+`/a.txt" first — read the file, then retry`, text)

	text, isErr = call(t, a, "edit", map[string]any{"file_path": "a.txt", "old_string": "world", "new_string": "there"})
	assert.False(t, isErr, text)
	assert.Equal(t, "The file "+s.W+"/a.txt has been updated successfully.", text)
	assert.Equal(t, 2, s.srv.Sessions())
}

func waitChanged(t *testing.T, s *stack) {
	t.Helper()
	select {
	case <-s.changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed notification")
	}
}

// TestToolListFollowsTheProvider: disposing fs withdraws the tools (host
// §6 item 22) and clients get tools/list_changed; a new provider brings
// them back.
func TestToolListFollowsTheProvider(t *testing.T) {
	s := newStack(t)
	cs := s.connect(t)
	tl, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, tl.Tools, 6, "list, read, write, edit, glob, grep")
	for len(s.changed) > 0 {
		<-s.changed
	}

	require.NoError(t, s.FS.Dispose(t.Context()))
	waitChanged(t, s)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		tl, err := cs.ListTools(t.Context(), nil)
		if assert.NoError(c, err) {
			assert.Empty(c, tl.Tools)
		}
	}, 5*time.Second, 20*time.Millisecond)
	assert.Empty(t, s.Registry.Prompt(), "the 6 prompt sections went with the tools")

	_, err = s.Host.Plugin(t.Context(), fslocal.Plugin, fslocal.Config{Cwd: s.W, Root: s.W})
	require.NoError(t, err)
	waitChanged(t, s)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		tl, err := cs.ListTools(t.Context(), nil)
		if assert.NoError(c, err) {
			assert.Len(c, tl.Tools, 6)
		}
	}, 5*time.Second, 20*time.Millisecond)
}

// TestCancellationReachesTheTool: a client's cancellation reaches the
// tool's context.
func TestCancellationReachesTheTool(t *testing.T) {
	s := newStack(t)
	started, saw := make(chan struct{}), make(chan error, 1)
	_, err := s.Registry.Register(s.Host.Root(), tools.Tool{Name: "block", Parameters: []byte(`{"type":"object","properties":{}}`),
		Execute: func(ctx context.Context, _ tools.Args, _ *tools.Exec) (any, error) {
			close(started)
			select {
			case <-ctx.Done():
				saw <- ctx.Err()
			case <-time.After(10 * time.Second):
				saw <- nil
			}
			return nil, ctx.Err()
		}})
	require.NoError(t, err)
	cs := s.connect(t)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
	assert.Error(t, err)
	select {
	case got := <-saw:
		assert.ErrorIs(t, got, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the tool never returned")
	}
}
