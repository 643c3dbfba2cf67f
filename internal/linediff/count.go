package linediff

import "github.com/aymanbagabas/go-udiff/lcs"

// Count returns how many lines a line diff between before and after adds
// and removes, as Hunks's diff counts them (lines compare with their
// newline). Only the region between the common leading and trailing lines
// is diffed, so a one-line change of a large text costs a few lines.
func Count(before, after string) (added, removed int) {
	if before == after {
		return 0, 0
	}
	lo, hiBefore, hiAfter := changedRegion(before, after)
	a, b := diffLines(before[lo:hiBefore]), diffLines(after[lo:hiAfter])
	for _, d := range lcs.DiffLines(a, b) {
		removed += d.End - d.Start
		added += d.ReplEnd - d.ReplStart
	}
	return added, removed
}
