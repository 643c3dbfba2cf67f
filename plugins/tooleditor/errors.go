package tooleditor

import (
	"errors"
	"strconv"
	"strings"

	"github.com/dsh-go/dsh/internal/jsnum"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// The tool's own coded and uncoded messages (editor.md §12). <p> is the
// display path with only the [D11] replacement, never quoted.

// errMissing is FS_NOT_FOUND `The path <p> does not exist. Please provide a
// valid path.` (view, str_replace, insert on an absent target).
func errMissing(op, p string) error {
	return &fsapi.Error{Code: fsapi.CodeNotFound, Op: op, Path: p,
		Message: "The path " + fsapi.Display(p) + " does not exist. Please provide a valid path."}
}

// errDirectory is FS_NOT_REGULAR_FILE for str_replace or insert on a
// directory.
func errDirectory(op, p string) error {
	return &fsapi.Error{Code: fsapi.CodeNotRegularFile, Op: op, Path: p,
		Message: "The path " + fsapi.Display(p) + " is a directory and only the `view` command can be used on directories"}
}

// errNotViewable is FS_NOT_REGULAR_FILE `cannot view "<p>": not a regular
// file or directory` (a FIFO, socket or device).
func errNotViewable(p string) error {
	return &fsapi.Error{Code: fsapi.CodeNotRegularFile, Op: "view", Path: p,
		Message: `cannot view "` + fsapi.Display(p) + `": not a regular file or directory`}
}

// errNotInsertable is FS_NOT_REGULAR_FILE `cannot insert into "<p>": not a
// regular file`.
func errNotInsertable(p string) error {
	return &fsapi.Error{Code: fsapi.CodeNotRegularFile, Op: "insert into", Path: p,
		Message: `cannot insert into "` + fsapi.Display(p) + `": not a regular file`}
}

// errNoMatch re-words FS_EDIT_NOT_FOUND: `No replacement was performed,
// old_str `<old>` did not appear verbatim in <p>.`, old as sent, followed
// by the lines of a near match when the provider found one (a
// *fsapi.NearMiss cause, docs/editing.md).
func errNoMatch(cause *fsapi.Error, old, p string) error {
	msg := "No replacement was performed, old_str `" + old + "` did not appear verbatim in " + fsapi.Display(p) + "."
	if nm := (*fsapi.NearMiss)(nil); errors.As(cause, &nm) {
		msg += nm.Detail()
	}
	return &fsapi.Error{Code: fsapi.CodeEditNotFound, Op: cause.Op, Path: p, Err: cause, Message: msg}
}

// errAmbiguous re-words FS_AMBIGUOUS_EDIT with the lines of the first
// occurrences: `No replacement was performed. Multiple occurrences of
// old_str `<old>` in lines [<lines>]. Please ensure it is unique`, the list
// followed by `, and <k> more` when more than fsapi.MaxMatchLines
// occurrences exist (editor.md §10).
func errAmbiguous(cause *fsapi.Error, ml *fsapi.MatchLines, old string) error {
	var b strings.Builder
	b.WriteString("No replacement was performed. Multiple occurrences of old_str `")
	b.WriteString(old)
	b.WriteString("` in lines [")
	for i, l := range ml.Lines {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(l))
	}
	if more := ml.Count - len(ml.Lines); more > 0 {
		b.WriteString(", and ")
		b.WriteString(strconv.Itoa(more))
		b.WriteString(" more")
	}
	b.WriteString("]. Please ensure it is unique")
	return &fsapi.Error{Code: fsapi.CodeAmbiguousEdit, Op: cause.Op, Path: cause.Path, Err: cause, Message: b.String()}
}

// rangeError is an uncoded view_range or insert_line message (editor.md
// §8.2, §11).
type rangeError string

func (e rangeError) Error() string { return string(e) }

// errViewRange checks [a, b] against n lines (editor.md §8.2) and returns
// the first failing check's message, or nil.
func errViewRange(a, b float64, n int64) error {
	pair := "Invalid `view_range`: [" + jsnum.Format(a) + ", " + jsnum.Format(b) + "]. "
	lines := float64(n)
	switch {
	case a < 1 || a > lines:
		return rangeError(pair + "Its first element `" + jsnum.Format(a) + "` should be within the range of lines of the file: [1, " + strconv.FormatInt(n, 10) + "]")
	case b > lines:
		return rangeError(pair + "Its second element `" + jsnum.Format(b) + "` should be smaller than the number of lines in the file: `" + strconv.FormatInt(n, 10) + "`")
	case b != -1 && b < a:
		return rangeError(pair + "Its second element `" + jsnum.Format(b) + "` should be larger or equal than its first `" + jsnum.Format(a) + "`")
	}
	return nil
}

// errInsertLine is the uncoded message of an insert_line outside [0, n]
// (editor.md §11), k as sent in the JavaScript number form.
func errInsertLine(k float64, n int64) error {
	return rangeError("Invalid `insert_line` parameter: " + jsnum.Format(k) + ". It should be within the range of lines of the file: [0, " + strconv.FormatInt(n, 10) + "]")
}
