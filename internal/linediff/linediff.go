// Package linediff computes the line-diff hunks of a mutation's meta
// (contract §6.10): `{diffs: [{path, oldText, newText}]}`, shared by the
// write and edit tools and the editor's str_replace and insert.
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

// NewMeta returns the meta of a write or edit on path (the raw
// file_path argument): no hunk when before is nil (a create, or a prior
// file that was not text), else the hunks of Hunks(path, *before, after).
// Contract §6.8 Meta, §6.9 Meta.
func NewMeta(path string, before *string, after string) Meta {
	if before == nil {
		return Meta{Diffs: []Hunk{}}
	}
	return Meta{Diffs: Hunks(path, *before, after)}
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
	hunks := []Hunk{}
	if before == after {
		return hunks
	}
	a, b := diffLines(before), diffLines(after)
	for _, sp := range hunkSpans(a, b) {
		h := Hunk{Path: path, NewText: joinLines(b[sp.newLo:sp.newHi])}
		if sp.oldHi > sp.oldLo {
			old := joinLines(a[sp.oldLo:sp.oldHi])
			h.OldText = &old
		}
		hunks = append(hunks, h)
	}
	return hunks
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
