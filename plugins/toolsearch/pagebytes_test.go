package toolsearch_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// A grep page is bounded in bytes as well as in matches (search.md §3
// [S10]): 250 matches of 2,000-byte lines made one result of 507 KB. The
// groups of a page (paths, `Line N:` lines, the empty lines between
// groups) stay within grepMaxBytes, the footer names the next offset, the
// pages together hold every match once, and a match larger than the budget
// still makes a page of its own.
func TestAGrepPageIsBoundedInBytes(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{NoPolicy: true})
	line := "needle " + strings.Repeat("x", 1993) // 2,000 bytes
	var b strings.Builder
	for range 250 {
		b.WriteString(line + "\n")
	}
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "big.txt"), []byte(b.String()), 0o644))
	conv := s.Conversation("bytes")

	seen := 0
	for offset := 1; offset <= 250; {
		res := s.Call(t.Context(), conv, "grep", `{"pattern":"needle","offset":`+strconv.Itoa(offset)+`}`)
		require.False(t, res.IsError, res.Text())
		text := res.Text()
		header, rest, _ := strings.Cut(text, "\n\n")
		body, footer, _ := strings.Cut(rest, "\n\n(")
		k := strings.Count(body, "\nLine ")
		assert.LessOrEqual(t, len("\n\n")+len(body), 51200, "offset %d", offset)
		assert.Equal(t, "Found "+strconv.Itoa(k)+" of 250 matches", header)
		end := offset + k - 1
		want := "Showing matches " + strconv.Itoa(offset) + "-" + strconv.Itoa(end) + " of 250."
		if end < 250 {
			want += " Use offset=" + strconv.Itoa(end+1) + " to continue.)"
		} else {
			want += ")"
		}
		assert.Equal(t, want, footer)
		seen += k
		offset = end + 1
	}
	assert.Equal(t, 250, seen)

	res := s.Call(t.Context(), conv, "grep", `{"pattern":"needle"}`)
	assert.Less(t, len(res.Text()), 52000, "the default page is about 50 KB, not 507 KB")

	small := stacktest.New(t, stacktest.Options{NoPolicy: true, ToolSearch: map[string]any{"grepMaxBytes": 10}})
	require.NoError(t, os.WriteFile(filepath.Join(small.W, "big.txt"), []byte(b.String()), 0o644))
	res = small.Call(t.Context(), small.Conversation("one"), "grep", `{"pattern":"needle","offset":3}`)
	assert.Equal(t, "Found 1 of 250 matches\n\nbig.txt\nLine 3: "+line+"\n\n(Showing matches 3-3 of 250. Use offset=4 to continue.)", res.Text(),
		"a match over the budget is a page of its own")
}
