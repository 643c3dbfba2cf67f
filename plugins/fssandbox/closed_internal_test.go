package fssandbox

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTenThousandEndedConversationsLeaveNoMode: every conversation that
// switched its mode and ended (conversation/closed) leaves no entry
// (conversations.md §5.3).
func TestTenThousandEndedConversationsLeaveNoMode(t *testing.T) {
	b := &sandbox{mode: WorkspaceWrite, sessionSwitch: true, modes: map[string]Mode{}}
	for i := range 10000 {
		id := "default/c/" + strconv.Itoa(i)
		b.set(id, ReadOnly)
		assert.Equal(t, ReadOnly, b.effective(id, true))
		require.NoError(t, b.closed(t.Context(), id))
		assert.Equal(t, WorkspaceWrite, b.effective(id, true), "the same ID starts in the configured mode")
	}
	assert.Zero(t, b.size())
}
