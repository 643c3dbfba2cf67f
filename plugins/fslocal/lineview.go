package fslocal

import (
	"sort"
	"strings"
)

// lineView is the LF view of a raw text together with the map back to it
// (contract §3.8 step 6). Text is the raw text with every CRLF pair replaced
// by LF. An LF of Text that came from a CRLF pair covers both raw bytes, so a
// span of Text maps to exactly one span of the raw text.
//
// The map costs one int per CRLF pair, not one per byte.
type lineView struct {
	// Text is the LF view.
	Text string
	// pairs holds, in ascending order, the Text offsets of the LFs that came
	// from CRLF pairs.
	pairs []int
}

// newLineView builds the LF view of raw.
func newLineView(raw string) lineView {
	n := strings.Count(raw, "\r\n")
	if n == 0 {
		return lineView{Text: raw}
	}
	pairs := make([]int, 0, n)
	var b strings.Builder
	b.Grow(len(raw) - n)
	start := 0
	for {
		i := strings.Index(raw[start:], "\r\n")
		if i < 0 {
			break
		}
		b.WriteString(raw[start : start+i])
		pairs = append(pairs, b.Len())
		b.WriteByte('\n')
		start += i + 2
	}
	b.WriteString(raw[start:])
	return lineView{Text: b.String(), pairs: pairs}
}

// raw returns the raw offset of view offset v (0 ≤ v ≤ len(Text)): the raw
// start of the view byte at v, or len(raw) for v = len(Text). The raw span
// of the view span [a, b) is [raw(a), raw(b)).
func (v lineView) raw(off int) int {
	// Every pair strictly before off adds the CR byte that the view dropped.
	k := sort.SearchInts(v.pairs, off)
	return off + k
}

// pairCount returns the number of CRLF pairs of the raw text.
func (v lineView) pairCount() int { return len(v.pairs) }
