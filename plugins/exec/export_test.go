package exec

import "testing"

// SetMaxLine lowers the bound of a line from the child for t.
func SetMaxLine(t testing.TB, n int) {
	old := maxLine
	maxLine = n
	t.Cleanup(func() { maxLine = old })
}
