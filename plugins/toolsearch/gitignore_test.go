package toolsearch_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// Ignore rules mean what git means (search.md §6.4.1 [S11]): `?.txt` does
// not hide `é.txt` (two bytes), `[]x]y.txt` hides `]y.txt` and `xy.txt`,
// and `[[:digit:]]*.num` hides `7.num`.
func TestIgnoreGlobsMatchBytesAsGitDoes(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{NoPolicy: true})
	for name, text := range map[string]string{
		".gitignore": "?.txt\n[]x]y.txt\n[[:digit:]]*.num\n",
		"é.txt":      "needle\n", "a.txt": "needle\n", "]y.txt": "needle\n", "xy.txt": "needle\n",
		"7.num": "needle\n", "x.num": "needle\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(s.W, name), []byte(text), 0o644))
	}
	res := s.Call(t.Context(), s.Conversation("ignore"), "grep", `{"pattern":"needle"}`)
	assert.Equal(t, "Found 2 matches\n\nx.num\nLine 1: needle\n\né.txt\nLine 1: needle", res.Text())
}
