package fsapi

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The bounds of the lines a near miss shows (docs/editing.md).
const (
	// NearMissMaxLines is how many lines of a near match are shown.
	NearMissMaxLines = 20
	// NearMissMaxBytes bounds the shown lines, `<n>: <text>` each, joined
	// by LF.
	NearMissMaxBytes = 2000
)

// NearMissKind is the one difference between an edit's old_string and a
// region of the file that a near match shows (docs/editing.md).
type NearMissKind int

const (
	// NearLineNumbers: old_string carries line-number prefixes on every
	// line (read's `<n>: `, or the editor view's right-aligned number and
	// two spaces); without them it occurs in the file exactly.
	NearLineNumbers NearMissKind = iota + 1
	// NearLineEndings: old_string occurs once CR, CRLF and LF all count as
	// one line ending (a file with lone CRs, old Mac endings, and an LF
	// old_string).
	NearLineEndings
	// NearWhitespace: old_string occurs once, on every line, runs of spaces
	// and tabs count as one space and spaces and tabs at the line's start
	// and end are ignored.
	NearWhitespace
)

// String returns how the message names the difference: "line-number
// prefixes", "line endings" or "spaces and tabs".
func (k NearMissKind) String() string {
	switch k {
	case NearLineNumbers:
		return "line-number prefixes"
	case NearLineEndings:
		return "line endings"
	case NearWhitespace:
		return "spaces and tabs"
	}
	return "unknown"
}

// NearMiss is the cause of an FS_EDIT_NOT_FOUND error whose old_string
// nearly occurs (docs/editing.md): the first region of the file's LF view
// that equals old_string but for one Kind of difference, at lines First to
// Last (1-based, as read numbers them). Lines holds the texts of lines
// First.. as read shows them (without the LF and one trailing CR), at most
// NearMissMaxLines of them, each at most NearMissMaxBytes bytes. More
// counts the further regions of the same kind. Nothing is ever applied to
// a near match.
type NearMiss struct {
	Kind        NearMissKind
	First, Last int
	Lines       []string
	More        int
}

// Error returns a short description; the model sees the message that
// [NearMiss.Detail] completes, never this.
func (n *NearMiss) Error() string { return "near match" }

// Detail returns what a not-found message gains after its first line (it
// starts with LF):
//
//	Near match at lines <a>-<b>, differing only in <kind> (nothing was replaced):
//	<a>: <text>
//	…
//
// `line <a>` for one line; the shown lines, `<n>: <text>` joined by LF,
// take at most NearMissMaxBytes bytes and NearMissMaxLines lines (a first
// line that alone is longer is cut at a character boundary and ends with
// `...`), and `(lines <x>-<b> not shown)` (`(line <b> not shown)`) follows
// when some are left out; `(and 1 more near match)` or `(and <N> more near
// matches)` ends it when More > 0.
func (n *NearMiss) Detail() string {
	var b strings.Builder
	b.WriteString("\nNear match at ")
	b.WriteString(lineRange(n.First, n.Last))
	b.WriteString(", differing only in ")
	b.WriteString(n.Kind.String())
	b.WriteString(" (nothing was replaced):")
	used, shown := 0, 0
	for i, text := range n.Lines {
		if i == NearMissMaxLines || n.First+i > n.Last {
			break
		}
		row := strconv.Itoa(n.First+i) + ": " + text
		if used+len(row) > NearMissMaxBytes { // used counts an LF after each row so far
			if i == 0 {
				cut := NearMissMaxBytes - len("...")
				for cut > 0 && !utf8.RuneStart(row[cut]) {
					cut--
				}
				b.WriteString("\n" + row[:cut] + "...")
				shown = 1
			}
			break
		}
		b.WriteString("\n" + row)
		used += len(row) + 1
		shown++
	}
	if next := n.First + shown; next <= n.Last {
		b.WriteString("\n(" + lineRange(next, n.Last) + " not shown)")
	}
	switch {
	case n.More == 1:
		b.WriteString("\n(and 1 more near match)")
	case n.More > 1:
		b.WriteString("\n(and " + strconv.Itoa(n.More) + " more near matches)")
	}
	return b.String()
}

// lineRange is `line <a>` or `lines <a>-<b>`.
func lineRange(a, b int) string {
	if a == b {
		return "line " + strconv.Itoa(a)
	}
	return "lines " + strconv.Itoa(a) + "-" + strconv.Itoa(b)
}

// ErrEditNotFoundNear is [ErrEditNotFound] for a near miss n: the same
// first line, `old_string was not found in "<p>"`, then n's
// [NearMiss.Detail], with n as the cause. A nil n gives ErrEditNotFound.
func ErrEditNotFoundNear(p string, n *NearMiss) *Error {
	e := ErrEditNotFound(p)
	if n != nil {
		e.Message += n.Detail()
		e.Err = n
	}
	return e
}
