package tooleditor

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viewModel is the independent model of a file view's rows (editor.md §7,
// §8.2, §8.3, §8.5): the LF view split at LFs, rows `%6d  <line>\n` for
// lines a..b (b -1: to N), clipped at max UTF-16 units without splitting a
// character. ok is false when the range checks fail.
func viewModel(text string, a, b int64, max int) (rows string, n int64, ok bool) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	n = int64(len(lines))
	if a < 1 || a > n || b > n || (b != -1 && b < a) {
		return "", n, false
	}
	if b == -1 {
		b = n
	}
	var all strings.Builder
	for i := a; i <= b; i++ {
		fmt.Fprintf(&all, "%6d  %s\n", i, lines[i-1])
	}
	units := 0
	for i, r := range all.String() {
		u := 1
		if r > 0xFFFF {
			u = 2
		}
		if units+u > max {
			return all.String()[:i] + clipNotice, n, true
		}
		units += u
	}
	return all.String(), n, true
}

// chunks splits s into pieces of about size bytes at character boundaries,
// as a provider's stream does.
func chunks(s string, size int) []string {
	var out []string
	for s != "" {
		k := min(size, len(s))
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// FuzzViewRange checks the streamed rows, the line count and the
// view_range checks against viewModel, for any range (boundaries
// included), any chunking (a CRLF or a lone CR split across chunks) and any
// clip size: no panic, the same rows and count, the same verdict.
func FuzzViewRange(f *testing.F) {
	for _, seed := range []struct {
		text      string
		a, b      int64
		size, max int
	}{
		{"one\ntwo\nthree", 1, 3, 4, 16000},
		{"one\ntwo\nthree", 0, 1, 1, 16000},
		{"one\ntwo\nthree", 3, 2, 2, 16000},
		{"one\ntwo\nthree", 1, 99, 3, 16000},
		{"l1\r\nl2\r\n", 2, -1, 3, 16000},
		{"a\rb\nc\r", 1, -1, 1, 16000},
		{"alpha\nbravo\ncharlie\ndelta\n", 1, -1, 5, 28},
		{"\U0001F600\U0001F600\U0001F600", 1, 1, 2, 11},
		{"", 1, 1, 1, 1},
		{"\n", 2, 2, 1, 100},
	} {
		f.Add(seed.text, seed.a, seed.b, seed.size, seed.max)
	}
	f.Fuzz(func(t *testing.T, text string, a, b int64, size, max int) {
		if !utf8.ValidString(text) || size < 1 || max < 1 || max > 1<<20 {
			return // providers stream valid UTF-8; sizes come from config
		}
		hasRange := !(a == 1 && b == -1 && size%2 == 0) // both forms of a whole view
		c := call{command: cmdView, hasRange: hasRange, first: float64(a), last: float64(b)}
		r := newRowScanner(c, max, int64(len(text)))
		for _, ch := range chunks(text, size) {
			r.feed(ch)
		}
		n := r.finish()
		want, wantN, ok := viewModel(text, a, b, max)
		require.Equal(t, wantN, n, "line count")
		if hasRange {
			err := errViewRange(float64(a), float64(b), n)
			require.Equal(t, ok, err == nil, "range verdict for [%d, %d] of %d lines: %v", a, b, n, err)
		}
		if ok {
			assert.Equal(t, want, r.out.String())
		}
	})
}
