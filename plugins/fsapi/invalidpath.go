package fsapi

import "strings"

// CodeInvalidPath is FS_INVALID_PATH: a path that can never name a file
// (contract §2.3, §3.2 [D17]).
const CodeInvalidPath Code = "FS_INVALID_PATH"

// ErrComponentTooLong is FS_INVALID_PATH `cannot resolve "<p>": a path
// component is too long`: one component is longer than the file system
// allows (ENAMETOOLONG) (contract §3.2 [D17]).
func ErrComponentTooLong(p string, cause error) *Error {
	return cannot(CodeInvalidPath, "resolve", p, "a path component is too long", cause)
}

// ErrNULInPath is FS_INVALID_PATH `cannot resolve "<p>": the path contains a
// NUL character`, with each NUL of p shown as `\0` (contract §3.2 [D17]).
func ErrNULInPath(p string) *Error {
	return cannot(CodeInvalidPath, "resolve", strings.ReplaceAll(p, "\x00", `\0`), "the path contains a NUL character", nil)
}

// ErrFinalSlash is FS_INVALID_PATH `cannot <op> "<p>/": a file path must
// not end with "/"`, where p is the display path of the path without its
// final slashes (contract §6.4a [D23]).
func ErrFinalSlash(op, p string) *Error {
	return newError(CodeInvalidPath, op, p, "cannot "+op+` "`+Display(p)+`/": a file path must not end with "/"`, nil)
}
