package linediff

import (
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// Unified returns the unified diff of the LF texts before and after, as
// `diff -u` and git print it: `--- a/<name>` and `+++ b/<name>`, then each
// hunk's `@@ -<from>,<n> +<to>,<m> @@` header (`,<n>` left out for one
// line; an empty side is `<line before it>,0`) and its lines marked ` `,
// `-` or `+`, with diffContext lines of context; a last line without a
// newline is followed by `\ No newline at end of file`. Every line of the
// result ends with LF. Identical texts give "". The hunks are those of
// Hunks (the same line diff, go-udiff's LCS, over only the changed region),
// so a one-line change of a 10 MB text costs a few lines.
func Unified(name, before, after string) string {
	if before == after {
		return ""
	}
	lo, hiBefore, hiAfter := changedRegion(before, after)
	a, b := diffLines(before[lo:hiBefore]), diffLines(after[lo:hiAfter])
	edits := lcs.DiffLines(a, b)
	// The region starts after the texts' common leading lines, the same
	// number in both.
	skipped := strings.Count(before[:lo], "\n")
	var out strings.Builder
	out.WriteString("--- a/" + name + "\n+++ b/" + name + "\n")
	for _, sp := range hunkSpans(a, b, edits) {
		out.WriteString("@@ -" + hunkRange(skipped+sp.oldLo, sp.oldHi-sp.oldLo) + " +" + hunkRange(skipped+sp.newLo, sp.newHi-sp.newLo) + " @@\n")
		i := sp.oldLo // the next old line to show
		for _, e := range edits[sp.firstEdit:sp.endEdit] {
			writeLines(&out, ' ', a[i:e.Start])
			writeLines(&out, '-', a[e.Start:e.End])
			writeLines(&out, '+', b[e.ReplStart:e.ReplEnd])
			i = e.End
		}
		writeLines(&out, ' ', a[i:sp.oldHi])
	}
	return out.String()
}

// hunkRange is a hunk header's `<start>,<count>` for count lines after the
// first `skipped` ones (0-based from): `<start>` alone for one line, and the
// line before the hunk with `,0` for none.
func hunkRange(from, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(from) + ",0"
	case 1:
		return strconv.Itoa(from + 1)
	}
	return strconv.Itoa(from+1) + "," + strconv.Itoa(count)
}

// writeLines writes each line (with its LF, or without one at the end of
// the text) after mark, and `\ No newline at end of file` after a line
// that has none.
func writeLines(out *strings.Builder, mark byte, lines []string) {
	for _, l := range lines {
		out.WriteByte(mark)
		out.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
