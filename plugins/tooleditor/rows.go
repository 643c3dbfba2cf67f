package tooleditor

import (
	"strconv"
	"strings"

	"github.com/dsh-go/dsh/internal/jsnum"
)

// rowScanner turns a file's text, fed in chunks of any size, into the rows
// of a view (editor.md §7, §8.3) while counting its lines: the LF view
// (CRLF read as LF, a lone CR kept, even across chunk boundaries), split at
// every LF, so N = LFs + 1. Rows of lines first..last (last 0: to the end)
// go to a clipper, each `<number right-aligned in 6>  <line>\n`; past the
// clip or the last line only LFs are counted. The text must have no BOM.
type rowScanner struct {
	first, last int64
	line        int64 // the line being scanned, 1-based
	started     bool  // the current line's row prefix is written
	pendingCR   bool  // a CR ended the previous chunk
	out         clipper
}

// newRowScanner shows the whole file, or c's range as sent (checked against
// the line count later): first below 1 or past the file shows nothing, and
// -1 as last means the end. sizeHint is the file's size in bytes (0:
// unknown); the rows' buffer is reserved for it up front, within what the
// clip can keep (3 bytes per UTF-16 unit at most).
func newRowScanner(c call, maxUnits int, sizeHint int64) *rowScanner {
	r := &rowScanner{first: 1, line: 1, out: clipper{max: maxUnits}}
	if sizeHint > 0 {
		rows := sizeHint + sizeHint/4 + 16 // each row adds its 8-byte number field
		r.out.b.Grow(int(min(rows, 3*int64(maxUnits)+4)))
	}
	if c.hasRange {
		r.first, r.last = clampLine(c.first), clampLine(c.last)
		if c.last == -1 {
			r.last = 0
		} else if r.last < 1 {
			r.first = 0 // an empty range: b < a is an error anyway
		}
	}
	return r
}

// clampLine converts an integral line number to int64, saturating.
func clampLine(v float64) int64 {
	switch {
	case v >= 1<<62:
		return 1 << 62
	case v <= -(1 << 62):
		return -(1 << 62)
	}
	return int64(v)
}

// showing reports whether the current line's text is still written.
func (r *rowScanner) showing() bool {
	return r.first >= 1 && r.line >= r.first && (r.last == 0 || r.line <= r.last) && !r.out.full()
}

// feed scans one chunk.
func (r *rowScanner) feed(chunk string) {
	for chunk != "" {
		if r.out.full() || (r.last != 0 && r.line > r.last) {
			// Nothing more is shown: only the line count is left.
			r.line += int64(strings.Count(chunk, "\n"))
			return
		}
		i := strings.IndexByte(chunk, '\n')
		if i < 0 {
			r.text(chunk, false)
			return
		}
		r.text(chunk[:i], true)
		r.endLine()
		chunk = chunk[i+1:]
	}
}

// text handles a piece of the current line; lf says an LF follows it.
func (r *rowScanner) text(s string, lf bool) {
	if r.pendingCR {
		if s == "" && !lf {
			return
		}
		r.pendingCR = false
		if !(s == "" && lf) { // CR then LF is one line break
			r.write("\r")
		}
	}
	if strings.HasSuffix(s, "\r") {
		s = s[:len(s)-1]
		if !lf {
			r.pendingCR = true
		}
	}
	r.write(s)
}

// write appends line text to the current row, starting the row first.
func (r *rowScanner) write(s string) {
	if !r.showing() {
		return
	}
	r.startRow()
	r.out.write(s)
}

func (r *rowScanner) startRow() {
	if r.started {
		return
	}
	r.started = true
	num := strconv.FormatInt(r.line, 10)
	if pad := 6 - len(num); pad > 0 {
		r.out.write("      "[:pad])
	}
	r.out.write(num)
	r.out.write("  ")
}

// endLine closes the current line: its row (an empty line still has one)
// and its line break.
func (r *rowScanner) endLine() {
	if r.showing() {
		r.startRow()
		r.out.write("\n")
	}
	r.line++
	r.started = false
}

// finish closes the last line and returns the line count N.
func (r *rowScanner) finish() int64 {
	if r.pendingCR {
		r.pendingCR = false
		r.write("\r")
	}
	r.endLine()
	return r.line - 1
}

// formatPair prints a view range as `<a>, <b>` in the JavaScript number
// form (editor.md §8.2).
func formatPair(a, b float64) string { return jsnum.Format(a) + ", " + jsnum.Format(b) }
