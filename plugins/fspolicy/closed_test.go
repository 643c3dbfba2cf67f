package fspolicy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
)

// TestSessionClosedDropsTheSessionsObservations: after session/closed names
// a session, its reads no longer authorise its edits, and other sessions
// keep theirs.
func TestSessionClosedDropsTheSessionsObservations(t *testing.T) {
	h := host.New()
	t.Cleanup(func() { _ = h.Shutdown(t.Context()) })
	mountPolicy(t, h)
	a, b := actor{session: "a"}, actor{session: "b"}
	observe(t, h, a, events.Present, "v1")
	observe(t, h, b, events.Present, "v1")

	require.NoError(t, events.SessionClosed.Emit(t.Context(), h.Root(), "a"))
	_, err := editIntent(t, h, a)
	assert.EqualError(t, err, `edit requires reading "/w/a.txt" first`)
	guard, err := editIntent(t, h, b)
	require.NoError(t, err)
	assert.Equal(t, "v1", string(guard.Version), "another session keeps its observation")
}
