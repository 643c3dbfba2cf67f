package mcp

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/frontend"
	"github.com/dsh-go/dsh/plugins/tools"
)

// The call limits take a config change in place (issue 13: a reload must
// not restart the mcp plugin, which would cut the stdio session): the same
// server keeps serving, with the new maxInFlight, callTimeout and
// drainTimeout for the calls that start from then on.
func TestTheLimitsTakeAConfigChangeInPlace(t *testing.T) {
	h := host.New()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	_, err := h.Plugin(t.Context(), tools.Plugin, nil)
	require.NoError(t, err)
	in, feed := io.Pipe()
	t.Cleanup(func() { _ = feed.Close() })
	cfg := defaultConfig()
	cfg.Stdin, cfg.Stdout, cfg.Stderr = in, io.Discard, io.Discard
	inst, err := h.Plugin(t.Context(), Plugin, cfg)
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))
	fe, ok := frontend.Key.Get(h.Root())
	srv := fe.(*Server)
	require.True(t, ok)
	loads := 0
	h.OnStatus(func(i *host.Instance, _, to host.State) {
		if i == inst && to == host.StateLoading {
			loads++
		}
	})

	next := inst.Config().(Config).withLiveKeysOf(Config{MaxInFlight: 3, CallTimeout: 2 * time.Second, DrainTimeout: time.Second, MaxConversations: 7, ConversationIdleTimeout: time.Minute})
	assert.True(t, sameTransport(inst.Config().(Config), next), "only the limits differ")
	require.NoError(t, inst.Update(t.Context(), next))

	assert.Zero(t, loads, "no restart")
	again, _ := frontend.Key.Get(h.Root())
	assert.Same(t, srv, again.(*Server), "the same server serves on")
	l := srv.limits.limit.Load()
	assert.Equal(t, 3, cap(l.slots))
	assert.Equal(t, 2*time.Second, l.timeout)
	assert.Equal(t, time.Second, time.Duration(srv.drainTimeout.Load()))
	assert.Equal(t, 3, inst.Config().(Config).MaxInFlight, "the instance's config is the new one")
	srv.conversations.mu.Lock()
	assert.Equal(t, 7, srv.conversations.max)
	assert.Equal(t, time.Minute, srv.conversations.idle)
	srv.conversations.mu.Unlock()

	moved := next
	moved.HTTP = "127.0.0.1:0"
	assert.False(t, sameTransport(next, moved), "the listen address needs a new start")
}
