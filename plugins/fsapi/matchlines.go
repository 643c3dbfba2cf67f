package fsapi

// MaxMatchLines is how many occurrences an ambiguous edit locates
// (editor.md §2.2).
const MaxMatchLines = 20

// MatchLines is the cause of an FS_AMBIGUOUS_EDIT error from EditText
// (editor.md §2.2): Count is the number of occurrences, counted as contract
// §3.8 step 7 counts them (overlapping ones included without ReplaceAll,
// [D15]), and Lines holds, in file order, the 1-based line of the LF view on
// which each of the first MaxMatchLines occurrences starts (two may share a
// line). The error's message does not change.
type MatchLines struct {
	Count int
	Lines []int
}

// Error returns a short description; the model sees the FS_AMBIGUOUS_EDIT
// message, never this.
func (m *MatchLines) Error() string { return "several occurrences" }

// ErrAmbiguousEditAt is [ErrAmbiguousEdit] for m.Count occurrences in p,
// carrying m as its cause (editor.md §2.2).
func ErrAmbiguousEditAt(m *MatchLines, p string) *Error {
	e := ErrAmbiguousEdit(m.Count, p)
	e.Err = m
	return e
}
