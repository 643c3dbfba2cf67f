package fslocal

import "strings"

// lineView is the LF view of a raw text together with the way back to it
// (contract §3.8 step 6). Text is the raw text with every CRLF pair
// replaced by LF (the raw text itself when it has none). An LF of Text that
// came from a CRLF pair covers both raw bytes, so a span of Text maps to
// exactly one span of the raw text.
//
// The map costs nothing beyond the view: a [rawCursor] finds the raw
// offsets by walking the raw text forward, one CRLF at a time.
type lineView struct {
	// Text is the LF view.
	Text string
	raw  string
	// pairs is the number of CRLF pairs in raw.
	pairs int
}

// newLineView builds the LF view of raw.
func newLineView(raw string) lineView {
	n := strings.Count(raw, "\r\n")
	if n == 0 {
		return lineView{Text: raw, raw: raw}
	}
	return lineView{Text: strings.ReplaceAll(raw, "\r\n", "\n"), raw: raw, pairs: n}
}

// pairCount returns the number of CRLF pairs of the raw text.
func (v *lineView) pairCount() int { return v.pairs }

// cursor returns a cursor at the start of both texts.
func (v *lineView) cursor() *rawCursor {
	c := &rawCursor{v: v, next: -1}
	if v.pairs > 0 {
		c.next = strings.Index(v.raw, "\r\n")
	}
	return c
}

// rawCursor maps view offsets to raw offsets, asked in non-decreasing
// order, in time linear in the raw text over all the questions.
type rawCursor struct {
	v *lineView
	// r and off are a raw offset and the view offset it corresponds to;
	// next is the raw offset of the first CRLF pair at or after r, or -1.
	r, off, next int
}

// at returns the raw offset of view offset off (at least the previous
// question's, and 0 ≤ off ≤ len(Text)): the raw start of the view byte at
// off, or len(raw) for off = len(Text). The raw span of the view span
// [a, b) is [at(a), at(b)).
func (c *rawCursor) at(off int) int {
	for c.next >= 0 {
		lf := c.off + (c.next - c.r) // the view offset of that pair's LF
		if off <= lf {
			break
		}
		c.r, c.off = c.next+2, lf+1
		if i := strings.Index(c.v.raw[c.r:], "\r\n"); i >= 0 {
			c.next = c.r + i
		} else {
			c.next = -1
		}
	}
	return c.r + (off - c.off)
}
