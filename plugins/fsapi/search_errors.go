package fsapi

// The search messages of search.md §2.3: a walk root or a directory below it
// that cannot be searched. p is the display path.

// ErrSearchNotFound is FS_NOT_FOUND `cannot search "<p>": not found`.
func ErrSearchNotFound(p string, cause error) *Error {
	return cannot(CodeNotFound, "search", p, "not found", cause)
}

// ErrSearchNotDirectory is FS_NOT_DIRECTORY `cannot search "<p>": not a
// directory` (a walk root, or glob's path naming a file).
func ErrSearchNotDirectory(p string) *Error {
	return cannot(CodeNotDirectory, "search", p, "not a directory", nil)
}

// ErrSearchNotRegularFile is FS_NOT_REGULAR_FILE `cannot search "<p>": not a
// regular file` (grep's path naming a FIFO, socket or device).
func ErrSearchNotRegularFile(p string) *Error {
	return cannot(CodeNotRegularFile, "search", p, "not a regular file", nil)
}

// ErrSearchIO is FS_IO_ERROR `cannot search "<p>": <cause text>`.
func ErrSearchIO(p string, cause error) *Error {
	return cannot(CodeIOError, "search", p, cause.Error(), cause)
}
