package toolsearch

import (
	"context"
	"io"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// expiring is a budget that runs out once expired is set.
type expiring struct {
	context.Context
	expired atomic.Bool
	checks  atomic.Int64
}

func (e *expiring) Err() error {
	e.checks.Add(1)
	if e.expired.Load() {
		return context.DeadlineExceeded
	}
	return nil
}

// expireAtEOF sets the budget's expired flag when the file has been read
// to its end: whatever is checked afterwards is the matching itself.
type expireAtEOF struct {
	r      io.Reader
	budget *expiring
}

func (x expireAtEOF) Read(p []byte) (int, error) {
	n, err := x.r.Read(p)
	if err == io.EOF {
		x.budget.expired.Store(true)
	}
	return n, err
}

// TestTheBudgetIsCheckedInsideALongLine: the regexp over one line longer
// than 64 KiB reads it through the budget (search.md §4.8), so a budget that
// runs out once the file is read stops the scan inside the line, with the
// matches of the lines before it kept and that line not counted.
func TestTheBudgetIsCheckedInsideALongLine(t *testing.T) {
	long := strings.Repeat("abcdefghij", 100_000) + "!" // 1 MB, no LF
	for _, pattern := range []string{`[a-z]{20}!`, `abc[a-z]*!`} {
		t.Run(pattern, func(t *testing.T) {
			m, err := compilePattern(pattern, false)
			require.NoError(t, err)
			budget := &expiring{Context: context.Background()}
			sc := scanner{m: m}
			content := "abcdefghijklmnopqrstuvwxyz!\n" + long
			res := sc.scan(budget, expireAtEOF{r: strings.NewReader(content), budget: budget}, scanOptions{limit: 1 << 30, maxMatches: 10, previewMax: 50})
			assert.True(t, res.unfinished, "the budget ran out inside the long line")
			assert.Equal(t, []lineMatch{{1, "abcdefghijklmnopqrstuvwxyz!"}}, res.matches, "line 1 is kept, line 2 is not counted")
		})
	}
}

// TestLongLinesMatchAsTheRegexpAlone: the pieces a long line is matched in
// give the answer the regexp gives on the whole line (search.md §6.5),
// with a literal prefix tried at each occurrence or not.
func TestLongLinesMatchAsTheRegexpAlone(t *testing.T) {
	body := strings.Repeat("foo bar. ", 8_000) // 72 KB, over readSize
	lines := []string{
		body + "foo123",
		body + "foo",
		"foo1" + body,
		body + "é\xffend",
		strings.Repeat("foo", 25_000) + "x",
		strings.Repeat("foo", 25_000) + "bar",
		body + "baz" + body + "qux",
	}
	patterns := []string{`foo\d+`, `foo\d+$`, `^foo1`, `foo.*bar$`, `foo.*qux`, `baz.*qux`, `\bfoo\b`, `\xff`, `.end$`, `[a-z]{4}`, `foox`, `(?i)FOO1`, `foo(?:o|x)$`}
	for _, p := range patterns {
		m, err := compilePattern(p, false)
		require.NoError(t, err)
		re := regexp.MustCompile(p)
		for i, l := range lines {
			got, stopped := m.candidateWithin(context.Background(), []byte(l))
			assert.False(t, stopped)
			assert.Equal(t, re.MatchString(l), got, "pattern %s, line %d", p, i)
		}
	}
	m, err := compilePattern(`^foo`, false)
	require.NoError(t, err)
	assert.Nil(t, m.prefix, "a match of ^foo cannot start at every foo")
	m, err = compilePattern(`foo\d`, false)
	require.NoError(t, err)
	assert.Equal(t, []byte("foo"), m.prefix)
	res := scanAll(t, m, []byte("a\n"+lines[0]+"\n"+lines[2]+"\n"), scanOptions{limit: 1 << 30, maxMatches: 10, previewMax: 4}, false)
	assert.Equal(t, []lineMatch{{2, "foo  (line truncated)"}, {3, "foo1 (line truncated)"}}, res.matches)
	assert.False(t, res.unfinished)
}
