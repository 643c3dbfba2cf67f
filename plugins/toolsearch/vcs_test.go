package toolsearch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// TestVCSNamedFilesHideNoSiblings: an entry with a VCS name is skipped
// whatever its type (search.md §4.4), and a file or symlink so named (a
// worktree's `.git` file, a `.hg` file, a `.git` symlink) leaves the rest
// of its directory searched.
func TestVCSNamedFilesHideNoSiblings(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	writeFiles(t, s.W, map[string]string{
		".hg":        "x\n",
		"z.txt":      "x\n",
		"d/.git":     "gitdir: ../.git/worktrees/d\n",
		"d/a.txt":    "x\n",
		"e/f.txt":    "x\n",
		"s/.svn/x":   "x\n",
		"s/t.txt":    "x\n",
		"g/.bzr/b":   "x\n",
		"g/.gitkeep": "x\n",
	})
	require.NoError(t, os.Symlink("../d", filepath.Join(s.W, "e", ".git")))
	same := time.Unix(1700000000, 0)
	for _, p := range []string{"z.txt", "d/a.txt", "e/f.txt", "s/t.txt", "g/.gitkeep"} {
		require.NoError(t, os.Chtimes(filepath.Join(s.W, p), same, same))
	}
	for _, pattern := range []string{"*", "**/*"} {
		res := s.Call(t.Context(), s.Conversation("s"), "glob", `{"pattern":"`+pattern+`"}`)
		assert.Equal(t, "d/a.txt\ne/f.txt\ng/.gitkeep\ns/t.txt\nz.txt", res.Text(), pattern)
	}
	res := s.Call(t.Context(), s.Conversation("s"), "glob", `{"pattern":"*","path":"d"}`)
	assert.Equal(t, "d/a.txt", res.Text())
	res = s.Call(t.Context(), s.Conversation("s"), "grep", `{"pattern":"x"}`)
	assert.Equal(t, "Found 4 matches\n\nd/a.txt\nLine 1: x\n\ne/f.txt\nLine 1: x\n\ns/t.txt\nLine 1: x\n\nz.txt\nLine 1: x", res.Text())
}

// TestBraceExpansionIsBounded: a pattern whose braces expand to more than
// 1024 patterns is refused, for glob and for grep's include, instead of
// costing seconds per name (internal/maxGlobExpansions).
func TestBraceExpansionIsBounded(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	writeFiles(t, s.W, map[string]string{"ab": "x\n"})
	p := strings.Repeat("{a,a}", 24) + "b"
	res := s.Call(t.Context(), s.Conversation("s"), "glob", `{"pattern":"`+p+`"}`)
	assert.Equal(t, "Error: glob pattern is not a valid glob (its braces expand to more than 1024 patterns); put a backslash before * ? [ ] { } or \\ to match that character literally", res.Text())
	assert.Equal(t, "SEARCH_INVALID_PATTERN", res.Code())
	res = s.Call(t.Context(), s.Conversation("s"), "grep", `{"pattern":"x","include":"`+p+`"}`)
	assert.Equal(t, "Error: grep include is not a valid glob (its braces expand to more than 1024 patterns); put a backslash before * ? [ ] { } or \\ to match that character literally", res.Text())
	res = s.Call(t.Context(), s.Conversation("s"), "glob", `{"pattern":"`+strings.Repeat("{a,}", 10)+`b"}`)
	assert.Equal(t, "ab", res.Text(), "1024 expansions are allowed")
}
