// Package linediff computes the line-diff hunks of a mutation's meta
// (contract §6.10): `{diffs: [{path, oldText, newText}]}`, shared by the
// write and edit tools and the editor's str_replace and insert, bounded as
// contract §5.4a [D20] says (`{diffsOmitted: true}` past the bounds).
package linediff

import (
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// diffContext is how many unchanged lines a hunk shows on each side of a
// change; changes separated by at most 2×diffContext unchanged lines share a
// hunk (contract §6.10).
const diffContext = 3

// Hunk is one entry of meta.diffs (contract §6.10): Path is the raw
// file_path argument as the model sent it; OldText is the hunk's old side
// (context and removed lines) and NewText its new side (context and added
// lines), each joined with "\n" without a trailing newline. OldText is nil
// (JSON null) when the old side has no line, a pure insertion.
type Hunk struct {
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

// Meta is the meta of a write or edit result: `{diffs}` (contract §6.8,
// §6.9). Diffs is never nil, so it marshals as `[]`.
type Meta struct {
	Diffs []Hunk `json:"diffs"`
}

// Omitted is the meta of a mutation whose diff is over a bound:
// `{diffsOmitted: true}` (contract §5.4a [D20]).
type Omitted struct {
	DiffsOmitted bool `json:"diffsOmitted"`
}

// Bounds are the two bounds of contract §5.4a [D20], toolfs's
// diffMaxBytes and diffBasisMaxBytes: MaxBytes bounds the hunks' paths, old
// and new texts together (each hunk repeats the path on the wire); no diff is computed when the text before or after is
// longer than BasisMaxBytes.
type Bounds struct {
	MaxBytes      int
	BasisMaxBytes int64
}

// DefaultBounds are toolfs's defaults: 65536 and 10485760 bytes.
var DefaultBounds = Bounds{MaxBytes: 65536, BasisMaxBytes: 10485760}

// NewMeta is BoundedMeta with DefaultBounds, for texts the provider
// returned.
func NewMeta(path string, before *string, after string) any {
	return BoundedMeta(path, before, after, false, DefaultBounds)
}

// BoundedMeta returns the meta of a write or edit on path (the raw
// file_path argument), contract §6.8 Meta, §6.9 Meta, §5.4a, first match:
//   - Omitted when omitted is set: the provider left out the texts of an
//     update past the diff basis;
//   - Meta with no hunk when before is nil: a create, or a prior file that
//     was not text, whatever the sizes;
//   - Omitted when before or after is longer than b.BasisMaxBytes (no diff
//     is computed) or when the hunks' paths, old and new texts add up to
//     more than b.MaxBytes;
//   - else Meta with the hunks of Hunks(path, *before, after).
func BoundedMeta(path string, before *string, after string, omitted bool, b Bounds) any {
	switch {
	case omitted:
		return Omitted{DiffsOmitted: true}
	case before == nil:
		return Meta{Diffs: []Hunk{}}
	case int64(len(after)) > b.BasisMaxBytes, int64(len(*before)) > b.BasisMaxBytes:
		return Omitted{DiffsOmitted: true}
	}
	hunks, ok := boundedHunks(path, *before, after, b.MaxBytes)
	if !ok {
		return Omitted{DiffsOmitted: true}
	}
	return Meta{Diffs: hunks}
}

// Hunks returns one entry per hunk of a line diff between the LF texts
// before and after, in file order, with diffContext lines of context
// (contract §6.10). Lines compare with their newline, so a last line that
// gains or loses its final newline counts as changed; the "No newline at end
// of file" marker is not represented. Identical texts give an empty, non-nil
// slice. The line diff is go-udiff's LCS, which is minimal for small
// differences; when several minimal diffs exist, which one is used is not
// contractual.
func Hunks(path, before, after string) []Hunk {
	hunks, _ := boundedHunks(path, before, after, -1)
	return hunks
}

// boundedHunks is Hunks that gives up (false) as soon as it knows the
// hunks' paths, old and new texts exceed maxBytes in total (no bound when
// maxBytes < 0), before building them.
//
// Only the region between the texts' common leading and trailing lines,
// widened by diffContext lines each side, is split into lines and diffed:
// a one-line edit of a 10 MB file looks at a few lines, not at every line
// twice. The common lines outside it can belong to no hunk, so the result is
// what a diff of the whole texts gives.
func boundedHunks(path, before, after string, maxBytes int) ([]Hunk, bool) {
	hunks := []Hunk{}
	if before == after {
		return hunks, true
	}
	lo, hiBefore, hiAfter := changedRegion(before, after)
	a, b := diffLines(before[lo:hiBefore]), diffLines(after[lo:hiAfter])
	spans := hunkSpans(a, b, lcs.DiffLines(a, b))
	if maxBytes >= 0 {
		total := 0
		for _, sp := range spans {
			// Each hunk repeats the path on the wire, so it counts too: a
			// long file_path times many hunks must not slip past the bound.
			total += len(path) + joinedLen(a[sp.oldLo:sp.oldHi]) + joinedLen(b[sp.newLo:sp.newHi])
		}
		if total > maxBytes {
			return nil, false
		}
	}
	for _, sp := range spans {
		h := Hunk{Path: path, NewText: joinLines(b[sp.newLo:sp.newHi])}
		if sp.oldHi > sp.oldLo {
			old := joinLines(a[sp.oldLo:sp.oldHi])
			h.OldText = &old
		}
		hunks = append(hunks, h)
	}
	return hunks, true
}

// changedRegion returns the byte range to diff: before[lo:hiBefore] and
// after[lo:hiAfter] hold every line that differs plus up to diffContext
// common lines on each side (fewer at either end of a text). lo is a line
// start; hiBefore and hiAfter are line ends (or the texts' ends). The texts
// must differ.
func changedRegion(before, after string) (lo, hiBefore, hiAfter int) {
	n := commonPrefix(before, after)
	// The common leading lines end at the last LF of the common prefix.
	lo = strings.LastIndexByte(before[:n], '\n') + 1
	m := commonSuffix(before[lo:], after[lo:])
	// The common trailing lines start after an LF in both texts (or at lo):
	// move the start of the common suffix forward to the first such point.
	sb, sa := len(before)-m, len(after)-m
	for !(atLineStart(before, sb, lo) && atLineStart(after, sa, lo)) {
		k := strings.IndexByte(before[sb:], '\n')
		if k < 0 {
			sb, sa = len(before), len(after)
			break
		}
		sb, sa = sb+k+1, sa+k+1
	}
	for range diffContext {
		if lo == 0 {
			break
		}
		lo = strings.LastIndexByte(before[:lo-1], '\n') + 1
	}
	hiBefore, hiAfter = sb, sa
	for range diffContext {
		k := strings.IndexByte(before[hiBefore:], '\n')
		if k < 0 {
			hiAfter += len(before) - hiBefore
			hiBefore = len(before)
			break
		}
		hiBefore, hiAfter = hiBefore+k+1, hiAfter+k+1
	}
	return lo, hiBefore, hiAfter
}

// compareBlock is how many bytes commonPrefix and commonSuffix compare at
// once (string equality is vectorised); the last, differing block is then
// walked byte by byte.
const compareBlock = 256

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n, limit := 0, min(len(a), len(b))
	for n+compareBlock <= limit && a[n:n+compareBlock] == b[n:n+compareBlock] {
		n += compareBlock
	}
	for n < limit && a[n] == b[n] {
		n++
	}
	return n
}

// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b string) int {
	m, limit := 0, min(len(a), len(b))
	for m+compareBlock <= limit && a[len(a)-m-compareBlock:len(a)-m] == b[len(b)-m-compareBlock:len(b)-m] {
		m += compareBlock
	}
	for m < limit && a[len(a)-1-m] == b[len(b)-1-m] {
		m++
	}
	return m
}

// atLineStart reports whether offset i of s starts a line, counting lo (a
// line start) as one.
func atLineStart(s string, i, lo int) bool {
	return i == lo || i == len(s) || s[i-1] == '\n'
}

// joinedLen is len(joinLines(lines)) without building it.
func joinedLen(lines []string) int {
	n := 0
	for i, l := range lines {
		if i > 0 {
			n++
		}
		n += len(strings.TrimSuffix(l, "\n"))
	}
	return n
}

// hunkSpan is where one hunk lies: lines [oldLo, oldHi) of the old text and
// [newLo, newHi) of the new one, context included, and the changes it
// holds, edits[firstEdit:endEdit] of the line diff.
type hunkSpan struct {
	oldLo, oldHi, newLo, newHi int
	firstEdit, endEdit         int
}

// hunkSpans groups edits, the line diff of a and b, into hunks:
// consecutive changes separated by at most 2×diffContext unchanged lines
// share a hunk, and each hunk extends diffContext unchanged lines (fewer at
// either end of the text) before its first change and after its last
// (contract §6.10).
func hunkSpans(a, b []string, edits []lcs.Diff) []hunkSpan {
	var spans []hunkSpan
	for i := 0; i < len(edits); {
		j := i
		for j+1 < len(edits) && edits[j+1].Start-edits[j].End <= 2*diffContext {
			j++
		}
		first, last := edits[i], edits[j]
		spans = append(spans, hunkSpan{
			oldLo: max(0, first.Start-diffContext), oldHi: min(len(a), last.End+diffContext),
			newLo: max(0, first.ReplStart-diffContext), newHi: min(len(b), last.ReplEnd+diffContext),
			firstEdit: i, endEdit: j + 1,
		})
		i = j + 1
	}
	return spans
}

// diffLines splits text into lines that keep their "\n"; a final line
// without one is kept as it is, and "" has no line.
func diffLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// joinLines joins lines without their newlines, separated by "\n".
func joinLines(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimSuffix(l, "\n"))
	}
	return b.String()
}
