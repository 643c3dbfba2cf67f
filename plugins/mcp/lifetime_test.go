package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/internal/stacktest"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// TestTenThousandConversationsThroughTheServer: conversations.md §5.3
// through the front end. 10,000 conversations each read a file, and every
// tenth narrows its sandbox mode; past maxConversations (100) the least recently
// active end, each with exactly one conversation/closed, and an ended one
// that comes back starts empty: its first edit needs a read, its mode is
// the configured one.
func TestTenThousandConversationsThroughTheServer(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	st := stacktest.New(t, stacktest.Options{FSSandbox: map[string]any{"sessionSwitch": true}})
	srv, err := mcpserver.New(st.Host.Root(), st.Registry, mcpserver.Options{Name: "test", Version: "1", Cwd: func() string { return st.W }, MaxConversations: 100})
	require.NoError(t, err)
	var mu sync.Mutex
	closed := map[string]int{}
	_, err = events.ConversationClosed.On(st.Host.Root(), func(_ context.Context, id string) error {
		mu.Lock()
		defer mu.Unlock()
		closed[id]++
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(st.W, "a.txt"), []byte("a\n"), 0o644))
	s := &stack{Stack: st, srv: srv}
	cs := s.connectAt(t, "")
	for i := range n {
		p := peer{cs, "c" + strconv.Itoa(i)}
		_, isErr := p.call(t, "read", map[string]any{"file_path": "a.txt"})
		require.False(t, isErr)
		if i%10 == 0 || i == n-1 {
			text, isErr := p.call(t, "sandbox_mode", map[string]any{"mode": "read-only"})
			require.False(t, isErr, text)
		}
	}
	assert.Equal(t, 100, srv.Conversations())
	mu.Lock()
	assert.Len(t, closed, n-100)
	for id, times := range closed {
		require.Equal(t, 1, times, id)
	}
	mu.Unlock()
	back := peer{cs, "c0"}
	text, isErr := back.call(t, "edit", map[string]any{"file_path": "a.txt", "old_string": "a", "new_string": "b"})
	assert.True(t, isErr)
	assert.Equal(t, `Error: edit requires reading "`+st.W+`/a.txt" first — read the file, then retry`, text)
	text, _ = back.call(t, "sandbox_mode", map[string]any{})
	assert.Contains(t, text, "Sandbox mode: workspace-write")
	live := peer{cs, "c" + strconv.Itoa(n-1)}
	text, _ = live.call(t, "sandbox_mode", map[string]any{})
	assert.Equal(t, "Sandbox mode: read-only", text, "a live conversation keeps its mode")
}
