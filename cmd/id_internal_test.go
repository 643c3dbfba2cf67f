package cmd

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewIDIsARandomUUID: newID gives version-4, RFC variant UUIDs that
// differ from call to call.
func TestNewIDIsARandomUUID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		s := newID()
		id, err := uuid.Parse(s)
		require.NoError(t, err, s)
		assert.Equal(t, uuid.Version(4), id.Version(), s)
		assert.Equal(t, uuid.RFC4122, id.Variant(), s)
		assert.False(t, seen[s], "repeated %s", s)
		seen[s] = true
	}
}
