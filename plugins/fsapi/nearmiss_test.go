package fsapi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// TestNearMissMessages pins the texts of docs/editing.md: the first line
// is the not-found message of contract §2.3, unchanged.
func TestNearMissMessages(t *testing.T) {
	const p = "/w/a.go"
	tests := []struct {
		name string
		nm   fsapi.NearMiss
		want string
	}{
		{"spaces and tabs, two lines", fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 2, Last: 3, Lines: []string{"\tif x {", "\t\treturn 1"}},
			"old_string was not found in \"/w/a.go\"\nNear match at lines 2-3, differing only in spaces and tabs (nothing was replaced):\n2: \tif x {\n3: \t\treturn 1"},
		{"line endings, one line", fsapi.NearMiss{Kind: fsapi.NearLineEndings, First: 1, Last: 1, Lines: []string{"a\rb"}},
			"old_string was not found in \"/w/a.go\"\nNear match at line 1, differing only in line endings (nothing was replaced):\n1: a\rb"},
		{"prefixes, one more", fsapi.NearMiss{Kind: fsapi.NearLineNumbers, First: 12, Last: 12, Lines: []string{"x"}, More: 1},
			"old_string was not found in \"/w/a.go\"\nNear match at line 12, differing only in line-number prefixes (nothing was replaced):\n12: x\n(and 1 more near match)"},
		{"several more", fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 1, Last: 1, Lines: []string{"x"}, More: 4},
			"old_string was not found in \"/w/a.go\"\nNear match at line 1, differing only in spaces and tabs (nothing was replaced):\n1: x\n(and 4 more near matches)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := fsapi.ErrEditNotFoundNear(p, &tc.nm)
			assert.Equal(t, tc.want, e.Error())
			assert.Equal(t, fsapi.CodeEditNotFound, e.Code)
			first, _, _ := strings.Cut(e.Error(), "\n")
			assert.Equal(t, fsapi.ErrEditNotFound(p).Error(), first, "the first line is today's message")
			var nm *fsapi.NearMiss
			require.True(t, errors.As(e, &nm), "the near miss is the cause")
			assert.Equal(t, tc.nm.First, nm.First)
		})
	}
	assert.Equal(t, fsapi.ErrEditNotFound(p).Error(), fsapi.ErrEditNotFoundNear(p, nil).Error(), "no near miss, no detail")
}

// TestNearMissShowsAtMostTwentyLinesAndTwoThousandBytes: the shown lines
// are bounded, the rest named by range; a first line too long alone is cut
// at a character boundary.
func TestNearMissShowsAtMostTwentyLinesAndTwoThousandBytes(t *testing.T) {
	var lines []string
	for range 30 {
		lines = append(lines, "x")
	}
	nm := fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 1, Last: 30, Lines: lines[:20]}
	d := nm.Detail()
	assert.Contains(t, d, "\n20: x\n(lines 21-30 not shown)")
	assert.NotContains(t, d, "21: x")

	long := strings.Repeat("y", 900)
	nm = fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 5, Last: 8, Lines: []string{long, long, long, long}}
	d = nm.Detail()
	assert.Contains(t, d, "\n6: "+long+"\n(lines 7-8 not shown)", "two rows of 903 bytes fit, a third does not")
	_, rows, _ := strings.Cut(d, ":\n")
	rows, _, _ = strings.Cut(rows, "\n(")
	assert.LessOrEqual(t, len(rows), fsapi.NearMissMaxBytes)

	wide := strings.Repeat("é", 1500) // 3000 bytes
	nm = fsapi.NearMiss{Kind: fsapi.NearLineEndings, First: 3, Last: 4, Lines: []string{wide[:fsapi.NearMissMaxBytes], "z"}}
	d = nm.Detail()
	_, rows, _ = strings.Cut(d, ":\n")
	row, rest, _ := strings.Cut(rows, "\n")
	assert.True(t, strings.HasPrefix(row, "3: éé") && strings.HasSuffix(row, "é..."), "cut at a character boundary: %q", row[len(row)-8:])
	assert.LessOrEqual(t, len(row), fsapi.NearMissMaxBytes)
	assert.Equal(t, "(line 4 not shown)", rest)
}

func TestNearMissKindNames(t *testing.T) {
	assert.Equal(t, "line-number prefixes", fsapi.NearLineNumbers.String())
	assert.Equal(t, "line endings", fsapi.NearLineEndings.String())
	assert.Equal(t, "spaces and tabs", fsapi.NearWhitespace.String())
}
