package fsapi

import (
	"context"
	"strconv"
)

// Inserter is the optional capability of inserting whole lines into a text
// file (editor.md §2.1). InsertText runs under the same per-target lock and
// guard as EditText, so its line arithmetic sees the bytes it rewrites. A
// provider without it is still a valid fs provider.
//
// The checks and errors are EditText's (contract §3.8 steps 1–5, op
// "edit"), then a Line outside [0, N] (N: the LF view's LF count plus one)
// fails FS_NOT_FOUND `cannot insert into "<p>": line <k> is out of range
// (<N> lines)` with a *LineRangeError cause and writes nothing. Text (CRLF
// read as LF) is inserted as whole lines in the file's dominant ending;
// every other byte is kept, the BOM included. The outcome is EditText's:
// the new version and the LF views before and after.
type Inserter interface {
	InsertText(ctx context.Context, t Target, req InsertRequest, guard *EditGuard) (EditOutcome, error)
}

// InsertRequest asks for Text to be inserted after line Line of the file's
// LF view (editor.md §2.1): 0 inserts before the first line, N (the line
// count) after the last. Text's CRLF pairs are read as LF; a lone CR stays.
type InsertRequest struct {
	Line int64
	Text string
}

// LineRangeError is the cause of the FS_NOT_FOUND error of an InsertText
// whose Line is outside [0, Lines] (editor.md §2.1 step 3). Lines is the
// file's line count.
type LineRangeError struct {
	Line, Lines int64
}

// Error returns `line <k> is out of range (<N> lines)`.
func (e *LineRangeError) Error() string {
	return "line " + strconv.FormatInt(e.Line, 10) + " is out of range (" + strconv.FormatInt(e.Lines, 10) + " lines)"
}

// ErrLineOutOfRange is FS_NOT_FOUND `cannot insert into "<p>": line <k> is
// out of range (<N> lines)`, "lines" never singular, with the
// *LineRangeError as its cause (editor.md §2.3).
func ErrLineOutOfRange(p string, line, lines int64) *Error {
	cause := &LineRangeError{Line: line, Lines: lines}
	return cannot(CodeNotFound, "insert into", p, cause.Error(), cause)
}
