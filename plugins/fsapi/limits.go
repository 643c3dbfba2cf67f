package fsapi

import "strconv"

// CodeFileTooLarge is FS_FILE_TOO_LARGE: a file larger than the provider's
// bound for an operation (fslocal's editMaxBytes for an edit).
const CodeFileTooLarge Code = "FS_FILE_TOO_LARGE"

// ErrFileTooLarge is FS_FILE_TOO_LARGE `cannot <op> "<p>": file is larger
// than <max> bytes`, raised before anything of the file is read.
func ErrFileTooLarge(op, p string, max int64) *Error {
	return cannot(CodeFileTooLarge, op, p, "file is larger than "+strconv.FormatInt(max, 10)+" bytes", nil)
}
