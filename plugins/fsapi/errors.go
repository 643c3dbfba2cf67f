package fsapi

import (
	"errors"
	"fmt"

	"github.com/dsh-go/dsh/internal/quote"
)

// Code is one of the error codes of contract §2.3 (CodeInvalidPath and
// CodeWriteFailed in invalidpath.go and writefailed.go), one of the two
// of the deployment's own limits (CodeFileTooLarge, CodeProtected, in
// limits.go and protected.go), or of the entry operations
// (CodeDirectoryNotEmpty and CodeAlreadyExists in remove.go). Its String
// form is the wire word (`FS_NOT_FOUND`, ...).
type Code string

// The codes of contract §2.3.
const (
	CodeNotFound         Code = "FS_NOT_FOUND"
	CodeNotDirectory     Code = "FS_NOT_DIRECTORY"
	CodeNotText          Code = "FS_NOT_TEXT"
	CodeNotRegularFile   Code = "FS_NOT_REGULAR_FILE"
	CodePermissionDenied Code = "FS_PERMISSION_DENIED"
	CodeSandboxDenied    Code = "FS_SANDBOX_DENIED"
	CodeIOError          Code = "FS_IO_ERROR"
	CodeStaleVersion     Code = "FS_STALE_VERSION"
	CodeNotObserved      Code = "FS_NOT_OBSERVED"
	CodeAmbiguousEdit    Code = "FS_AMBIGUOUS_EDIT"
	CodeEditNotFound     Code = "FS_EDIT_NOT_FOUND"
	CodeAborted          Code = "FS_ABORTED"
)

// String returns the wire word, e.g. "FS_NOT_FOUND".
func (c Code) String() string { return string(c) }

// ErrorName is the kind name every fs error reports as error.info.name
// (contract §2.3, §5.2 step 8).
const ErrorName = "FsError"

// Error is the coded error of the fs seam, shaped like *fs.PathError
// (contract §2.3). Error() returns Message unchanged: the contract text, byte
// for byte. Op is the operation word (`read`, `write`, `list`, ...), Path the
// display path it concerns (empty when none), and Err the cause, so
// errors.Is(err, fs.ErrNotExist) or errors.Is(err, context.Canceled) still
// answer. Go callers find it with errors.As; the tool registry asks only for
// the ErrorName/ErrorCode pair and never imports this package.
type Error struct {
	Code    Code
	Op      string
	Path    string
	Message string
	Err     error
}

// Error returns the contract message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause, possibly nil.
func (e *Error) Unwrap() error { return e.Err }

// ErrorName returns "FsError" (contract §2.3).
func (e *Error) ErrorName() string { return ErrorName }

// ErrorCode returns the code's wire word, e.g. "FS_STALE_VERSION".
func (e *Error) ErrorCode() string { return string(e.Code) }

// HasCode reports whether the first *Error in err's chain has code.
func HasCode(err error, code Code) bool {
	var fe *Error
	return errors.As(err, &fe) && fe.Code == code
}

// Display returns s as model-visible text: every byte that does not start a
// valid UTF-8 sequence becomes one U+FFFD, everything else is unchanged
// (contract §6.6.5, [D11]). Every path inside a message of this package passes
// through it.
func Display(s string) string { return quote.ReplaceInvalid(s) }

func newError(code Code, op, p, msg string, cause error) *Error {
	return &Error{Code: code, Op: op, Path: p, Message: msg, Err: cause}
}

// cannot formats the contract's `cannot <op> "<p>": <what>` shape. The quotes
// are literal (never %q, which would escape the path).
func cannot(code Code, op, p, what string, cause error) *Error {
	return newError(code, op, p, "cannot "+op+` "`+Display(p)+`": `+what, cause)
}

// ErrBlankPath is FS_NOT_FOUND `file_path must be a non-empty string`, raised
// by Resolve and Lstat for a blank path (contract §3.2 step 2). op is
// "resolve" or "lstat".
func ErrBlankPath(op string) *Error {
	return newError(CodeNotFound, op, "", "file_path must be a non-empty string", nil)
}

// ErrParentNotDirectory is FS_NOT_FOUND
// `cannot resolve "<p>": a parent path segment is not a directory`
// (contract §3.2 step 4).
func ErrParentNotDirectory(p string, cause error) *Error {
	return cannot(CodeNotFound, "resolve", p, "a parent path segment is not a directory", cause)
}

// ErrNotFound is FS_NOT_FOUND `cannot <op> "<p>": not found`, for op "read"
// (provider or read tool), "list" (listDir) or "edit" (the policy on a
// confirmed-absent target, [D4]). Contract §2.3.
func ErrNotFound(op, p string, cause error) *Error {
	return cannot(CodeNotFound, op, p, "not found", cause)
}

// ErrOffsetOutOfRange is FS_NOT_FOUND
// `offset <offset> is out of range for "<p>" (<n> <unit>)`, raised by the read
// tool (unit "lines") and the list tool (unit "entries", never singular).
// offset is already formatted as JavaScript prints numbers (contract §6.7.1).
func ErrOffsetOutOfRange(offset, p string, n int, unit string) *Error {
	msg := fmt.Sprintf(`offset %s is out of range for "%s" (%d %s)`, offset, Display(p), n, unit)
	return newError(CodeNotFound, "", p, msg, nil)
}

// ErrWriteDoubleFault is FS_NOT_FOUND
// `write failed (<m1>) and temp <what> failed (<m2>)`, where what is
// "cleanup" or "close": a staged write failed and removing or closing its
// temporary file failed too (contract §2.3, §3.7 step 10). It wraps first.
func ErrWriteDoubleFault(first, second error, what string) *Error {
	msg := "write failed (" + first.Error() + ") and temp " + what + " failed (" + second.Error() + ")"
	return newError(CodeNotFound, "write", "", msg, first)
}

// ErrNotDirectory is FS_NOT_DIRECTORY `cannot list "<p>": not a directory`.
func ErrNotDirectory(p string) *Error {
	return cannot(CodeNotDirectory, "list", p, "not a directory", nil)
}

// ErrBinary is FS_NOT_TEXT `cannot <op> "<p>": binary file`, op "read" (a NUL
// in the first 8192 bytes) or "edit" (a NUL anywhere). Contract §3.5, §3.8.
func ErrBinary(op, p string) *Error {
	return cannot(CodeNotText, op, p, "binary file", nil)
}

// ErrInvalidUTF8 is FS_NOT_TEXT `cannot <op> "<p>": invalid UTF-8 text`, op
// "read" or "edit".
func ErrInvalidUTF8(op, p string) *Error {
	return cannot(CodeNotText, op, p, "invalid UTF-8 text", nil)
}

// ErrNotRegularFile is FS_NOT_REGULAR_FILE `cannot <op> "<p>": not a regular
// file`, op "read", "write" or "edit".
func ErrNotRegularFile(op, p string) *Error {
	return cannot(CodeNotRegularFile, op, p, "not a regular file", nil)
}

// ErrPermission is FS_PERMISSION_DENIED `cannot <op> "<p>": permission denied`
// for op "list", "read", "write", "edit", "resolve" or "stat" ([D7]). For a
// listing's child, p is `<dir>/<name>`. It wraps the platform error.
func ErrPermission(op, p string, cause error) *Error {
	return cannot(CodePermissionDenied, op, p, "permission denied", cause)
}

// ErrOutsideWorkspace is FS_SANDBOX_DENIED
// `cannot resolve "<p>": outside the workspace`, where p is the requested
// path's display path (contract §3.10, [D8]).
func ErrOutsideWorkspace(p string, cause error) *Error {
	return cannot(CodeSandboxDenied, "resolve", p, "outside the workspace", cause)
}

// ErrListIO is FS_IO_ERROR `cannot list "<p>": <cause text>` for any other
// listing failure, such as a symlink loop (contract §3.6).
func ErrListIO(p string, cause error) *Error {
	return cannot(CodeIOError, "list", p, cause.Error(), cause)
}

// ErrNoLongerExists is FS_STALE_VERSION `cannot write "<p>": file no longer
// exists`: a ReplaceIfVersion write found no file (contract §3.7 step 4).
func ErrNoLongerExists(p string) *Error {
	return cannot(CodeStaleVersion, "write", p, "file no longer exists", nil)
}

// ErrChanged is FS_STALE_VERSION `cannot <op> "<p>": file changed since it was
// read`, op "write" (version differs), "edit" (target missing, or the guard
// differs) or "restore" (a [Restorer]'s expectation does not hold). Contract
// §3.7, §3.8.
func ErrChanged(op, p string) *Error {
	return cannot(CodeStaleVersion, op, p, "file changed since it was read", nil)
}

// ErrOverwriteUnread is FS_NOT_OBSERVED
// `cannot overwrite existing "<p>" without reading it first`: a CreateIfAbsent
// write met an existing file (contract §3.7 step 4).
func ErrOverwriteUnread(p string) *Error {
	return newError(CodeNotObserved, "write", p, `cannot overwrite existing "`+Display(p)+`" without reading it first`, nil)
}

// ErrEditUnread is FS_NOT_OBSERVED `edit requires reading "<p>" first`: the
// policy's edit intent with no observation or no session (contract §4).
func ErrEditUnread(p string) *Error {
	return newError(CodeNotObserved, "edit", p, `edit requires reading "`+Display(p)+`" first`, nil)
}

// ErrAmbiguousEdit is FS_AMBIGUOUS_EDIT `old_string matched <N> times in
// "<p>"; provide a more specific old_string or set replace_all to true`.
func ErrAmbiguousEdit(n int, p string) *Error {
	msg := fmt.Sprintf(`old_string matched %d times in "%s"; provide a more specific old_string or set replace_all to true`, n, Display(p))
	return newError(CodeAmbiguousEdit, "edit", p, msg, nil)
}

// ErrEditNotFound is FS_EDIT_NOT_FOUND `old_string was not found in "<p>"`.
func ErrEditNotFound(p string) *Error {
	return newError(CodeEditNotFound, "edit", p, `old_string was not found in "`+Display(p)+`"`, nil)
}

// ErrEmptyOldString is FS_EDIT_NOT_FOUND `old_string must be a non-empty
// string`: the provider's check after CRLF→LF (contract §3.8 step 6).
func ErrEmptyOldString() *Error {
	return newError(CodeEditNotFound, "edit", "", "old_string must be a non-empty string", nil)
}

// ErrAborted is FS_ABORTED `<op> aborted` for op "resolve", "stat", "lstat",
// "read", "list", "write" or "edit"; cause is ctx.Err() (contract §2.4).
func ErrAborted(op string, cause error) *Error {
	return newError(CodeAborted, op, "", op+" aborted", cause)
}
