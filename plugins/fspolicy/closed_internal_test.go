package fspolicy

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

type sessionActor string

func (a sessionActor) SessionID() (string, bool) { return string(a), true }
func (a sessionActor) ToolName() string          { return "read" }

// TestTenThousandClosedSessionsLeaveNoState: a server that opens and
// closes sessions for a long time keeps no observation of closed ones
// (issue 12).
func TestTenThousandClosedSessionsLeaveNoState(t *testing.T) {
	p := newPolicy()
	for i := range 10000 {
		id := "mcp-" + strconv.Itoa(i)
		for _, f := range []string{"/w/a", "/w/b"} {
			require.NoError(t, p.observed(t.Context(), events.Observation{Target: fsapi.Target{Key: f}, Kind: events.Present, Version: "v", Actor: sessionActor(id)}))
		}
		if i%1000 == 0 {
			assert.Equal(t, 1, p.sessions(), "one session open at a time")
		}
		require.NoError(t, p.closed(t.Context(), id))
	}
	assert.Zero(t, p.sessions())
}
