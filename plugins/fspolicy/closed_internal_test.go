package fspolicy

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

type actor string

func (a actor) SessionID() (string, bool) { return string(a), true }
func (a actor) ToolName() string          { return "read" }

// TestClosedSessionsArePruned: after 10,000 sessions each observed two
// files and closed (session/closed through the host, as the MCP plugin
// emits it), the policy holds no entry; a session still open keeps its own.
func TestClosedSessionsArePruned(t *testing.T) {
	h := host.New()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	p := newPolicy()
	probe := host.Define[Config]("fspolicy-probe", func(_ context.Context, s *host.Scope, _ Config) error { return p.register(s) })
	inst, err := h.Plugin(t.Context(), probe, nil)
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))

	observe := func(id string, key string) {
		require.NoError(t, events.FSObserved.Emit(t.Context(), h.Root(), events.Observation{
			Target: fsapi.Target{Key: key, DisplayPath: key}, Kind: events.Present, Actor: actor(id)}))
	}
	observe("kept", "/w/kept.txt")
	for i := range 10_000 {
		id := fmt.Sprintf("mcp-%d", i)
		observe(id, "/w/a.txt")
		observe(id, fmt.Sprintf("/w/%d.txt", i))
		if i == 0 {
			sessions, obs := p.sessions()
			assert.Equal(t, 2, sessions)
			assert.Equal(t, 3, obs)
		}
		require.NoError(t, events.SessionClosed.Emit(t.Context(), h.Root(), id))
	}
	sessions, obs := p.sessions()
	assert.Equal(t, 1, sessions, "only the open session is held")
	assert.Equal(t, 1, obs)
	require.NoError(t, events.SessionClosed.Emit(t.Context(), h.Root(), "kept"))
	sessions, obs = p.sessions()
	assert.Zero(t, sessions)
	assert.Zero(t, obs)
}
