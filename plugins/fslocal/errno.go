package fslocal

import (
	"errors"
	"io/fs"
	"syscall"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// errEscapes is the cause of a confinement refusal this package raises
// itself (a key that would leave the root).
var errEscapes = errors.New("path escapes from root")

// absent reports whether err means "nothing there": ENOENT, or ENOTDIR (a
// path segment is not a directory). Contract §3.4, §3.7 step 2.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// denied reports whether err is EACCES or EPERM ([D7]).
func denied(err error) bool {
	return errors.Is(err, fs.ErrPermission)
}

// escapes reports whether err is a confinement refusal: os.Root's "path
// escapes from parent" (an unexported error the os package compares by
// identity, so its text is the only handle we have), wrapped in a
// *fs.PathError (openat, mkdirat, removeat, ...) or an *os.LinkError
// (renameat, linkat), or our own errEscapes.
func escapes(err error) bool {
	if errors.Is(err, errEscapes) {
		return true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// coded maps err met while doing op on t to the contract's coded errors: a
// confinement refusal becomes FS_SANDBOX_DENIED, EACCES/EPERM become
// FS_PERMISSION_DENIED for op; coded errors are kept. Anything else
// (ENOSPC, EIO, EROFS, ...) passes through uncoded (contract §2.3).
func coded(op, display string, err error) error {
	var fe *fsapi.Error
	switch {
	case errors.As(err, &fe):
		return err
	case escapes(err):
		return fsapi.ErrOutsideWorkspace(display, err)
	case denied(err):
		return fsapi.ErrPermission(op, display, err)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return fsapi.ErrComponentTooLong(display, err)
	}
	return err
}
