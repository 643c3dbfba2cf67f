package toolfs

import (
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// diffContext is how many unchanged lines a hunk shows on each side of a
// change; changes separated by at most 2×diffContext unchanged lines share a
// hunk (contract §6.10).
const diffContext = 3

// diffHunk is one entry of meta.diffs (contract §6.10): Path is the raw
// file_path argument as the model sent it; OldText is the hunk's old side
// (context and removed lines) and NewText its new side (context and added
// lines), each joined with "\n" without a trailing newline. OldText is nil
// (JSON null) when the old side has no line, a pure insertion.
type diffHunk struct {
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

// newDiffMeta returns the meta of a write or edit on path (the raw
// file_path argument), as the _meta fields MCP sends (contract §6.8 Meta,
// §6.9 Meta, §5.4a [D20]):
//   - {"diffsOmitted": true} when omitted is set (the provider left out the
//     texts), when before or after is longer than b.basis bytes (no diff is
//     computed), or when the hunks' old and new texts add up to more than
//     b.max bytes;
//   - else {"diffs": []} when before is nil (a create, or a prior file that
//     was not text), and {"diffs": hunks} otherwise (never nil, so `[]`).
func newDiffMeta(path string, before *string, after string, omitted bool, b diffBounds) map[string]any {
	switch {
	case omitted, int64(len(after)) > b.basis, before != nil && int64(len(*before)) > b.basis:
		return map[string]any{"diffsOmitted": true}
	case before == nil:
		return map[string]any{"diffs": []diffHunk{}}
	}
	hunks, ok := boundedHunks(path, *before, after, b.max)
	if !ok {
		return map[string]any{"diffsOmitted": true}
	}
	return map[string]any{"diffs": hunks}
}

// diffBounds are toolfs's diffMaxBytes and diffBasisMaxBytes (contract
// §5.4a).
type diffBounds struct {
	max   int
	basis int64
}

// diffMeta is newDiffMeta under the activation's bounds.
func (ts *toolset) diffMeta(path string, before *string, after string, omitted bool) map[string]any {
	return newDiffMeta(path, before, after, omitted, diffBounds{max: ts.cfg.DiffMaxBytes, basis: ts.cfg.DiffBasisMaxBytes})
}

// diffHunks returns one entry per hunk of a line diff between the LF texts
// before and after, in file order, with diffContext lines of context
// (contract §6.10). Lines compare with their newline, so a last line that
// gains or loses its final newline counts as changed; the "No newline at end
// of file" marker is not represented. Identical texts give an empty, non-nil
// slice. The line diff is go-udiff's LCS, which is minimal for small
// differences; when several minimal diffs exist, which one is used is not
// contractual.
func diffHunks(path, before, after string) []diffHunk {
	hunks, _ := boundedHunks(path, before, after, -1)
	return hunks
}

// boundedHunks is diffHunks that gives up (false) as soon as it knows the
// hunks' old and new texts exceed maxBytes in total (no bound when
// maxBytes < 0), before building them.
//
// Only the region between the texts' common leading and trailing lines,
// widened by diffContext lines each side, is split into lines and diffed:
// a one-line edit of a 10 MB file looks at a few lines, not at every line
// twice. The common lines outside it can belong to no hunk, so the result is
// what a diff of the whole texts gives.
func boundedHunks(path, before, after string, maxBytes int) ([]diffHunk, bool) {
	hunks := []diffHunk{}
	if before == after {
		return hunks, true
	}
	lo, hiBefore, hiAfter := changedRegion(before, after)
	a, b := diffLines(before[lo:hiBefore]), diffLines(after[lo:hiAfter])
	spans := hunkSpans(a, b)
	if maxBytes >= 0 {
		total := 0
		for _, sp := range spans {
			total += joinedLen(a[sp.oldLo:sp.oldHi]) + joinedLen(b[sp.newLo:sp.newHi])
		}
		if total > maxBytes {
			return nil, false
		}
	}
	for _, sp := range spans {
		h := diffHunk{Path: path, NewText: joinLines(b[sp.newLo:sp.newHi])}
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
// [newLo, newHi) of the new one, context included.
type hunkSpan struct {
	oldLo, oldHi, newLo, newHi int
}

// hunkSpans groups the line diff of a and b into hunks: consecutive changes
// separated by at most 2×diffContext unchanged lines share a hunk, and each
// hunk extends diffContext unchanged lines (fewer at either end of the
// text) before its first change and after its last (contract §6.10).
func hunkSpans(a, b []string) []hunkSpan {
	edits := lcs.DiffLines(a, b)
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
