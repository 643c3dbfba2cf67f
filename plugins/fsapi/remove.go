package fsapi

import "context"

// RemoveGuard is the expected version of a file that a delete or a move
// takes away; a nil *RemoveGuard means unguarded (a directory, a symlink
// or a special file, whose removal loses no content the conversation has
// not seen). It is the decision of fs/remove-intent.
type RemoveGuard struct {
	Version Version
}

// EntryResolver is the optional capability of naming an entry itself,
// without following its final symlink: the target of a move's source or
// destination, a delete or a mkdir. ResolveEntry computes the display path
// as Resolve does; the key is the real location of the parent joined with
// the final name, so a symlink (dangling or not) is named by its own key
// and a regular file or directory has the key Resolve gives it. Info is
// what Lstat reports of that entry, nil when it is absent. The errors are
// Resolve's.
type EntryResolver interface {
	ResolveEntry(ctx context.Context, path string, opts ResolveOptions) (Target, *PathInfo, error)
}

// RemoveRequest asks for one entry to be removed: Type is the entry type
// the intent was decided for (the entry must still have it), Guard the
// decided version of a file (nil: unguarded).
type RemoveRequest struct {
	Type  EntryType
	Guard *RemoveGuard
}

// Remover is the optional capability of removing one entry: a file, a
// symlink itself (never what it points to), a special file or an empty
// directory, atomically and durably, under the target's lock. Errors:
// FS_NOT_FOUND `cannot delete "<p>": not found` when it is absent;
// FS_STALE_VERSION `cannot delete "<p>": file changed since it was read`
// when its type is no longer req.Type or a guarded file's version differs;
// FS_DIRECTORY_NOT_EMPTY for a directory with entries
// ([ErrDirectoryNotEmpty]); permission and confinement errors as for
// writes.
type Remover interface {
	Remove(ctx context.Context, t Target, req RemoveRequest) error
}

// MoveRequest asks for Source to be moved to Destination (both named by
// [EntryResolver]): SourceType and SourceGuard are the source's decided
// type and guard as for [RemoveRequest]; Intent is the destination's write
// intent (nil: unconditional); Overwrite lets an existing destination file
// be replaced (never a directory).
type MoveRequest struct {
	SourceType  EntryType
	SourceGuard *RemoveGuard
	Intent      *WriteIntent
	Overwrite   bool
}

// MoveOutcome is the result of a successful Move: the destination's
// version after it, and CrossDevice when the entry was copied to another
// file system and the source removed after the copy was durable.
type MoveOutcome struct {
	Version     Version
	CrossDevice bool
}

// Mover is the optional capability of moving an entry (a file, a symlink
// itself, a special file or a directory with everything in it). On one
// file system it is one rename that never replaces an existing destination
// unless Overwrite is set (renameat2 RENAME_NOREPLACE where the provider
// has it); across file systems the entry is copied to a staging name beside
// the destination, made durable, published under the destination's name
// without replacing, and only then the source is removed. Both keys are
// locked, in byte order of the key. Errors: the source's as for [Remover]
// (op "move"); FS_ALREADY_EXISTS ([ErrDestinationExists]) for an existing
// destination without Overwrite, or a directory with it; the destination
// intent's errors as for WriteText (op "write").
type Mover interface {
	Move(ctx context.Context, source, destination Target, req MoveRequest) (MoveOutcome, error)
}

// DirMaker is the optional capability of creating a directory and its
// missing parents. MakeDirs returns how many directories it created (0 when
// t already exists as a directory); an existing entry of another type at t
// fails FS_NOT_DIRECTORY ([ErrExistsNotDirectory]). Each new directory is
// made durable in its parent, created 0777 minus the umask.
type DirMaker interface {
	MakeDirs(ctx context.Context, t Target) (int, error)
}

// CodeDirectoryNotEmpty is FS_DIRECTORY_NOT_EMPTY: a delete of a directory
// that still has entries.
const CodeDirectoryNotEmpty Code = "FS_DIRECTORY_NOT_EMPTY"

// CodeAlreadyExists is FS_ALREADY_EXISTS: a move onto an existing
// destination without overwrite, or onto a directory.
const CodeAlreadyExists Code = "FS_ALREADY_EXISTS"

// ErrDirectoryNotEmpty is FS_DIRECTORY_NOT_EMPTY `cannot delete "<p>": the
// directory is not empty; delete its entries first, or move the whole
// directory`.
func ErrDirectoryNotEmpty(p string) *Error {
	return cannot(CodeDirectoryNotEmpty, "delete", p, "the directory is not empty; delete its entries first, or move the whole directory", nil)
}

// ErrDestinationExists is FS_ALREADY_EXISTS `cannot move to "<p>": the
// destination exists; set overwrite to true to replace it` for an existing
// file, symlink or special file, and `cannot move to "<p>": the
// destination is a directory; end it with / to move into it` for an
// existing directory.
func ErrDestinationExists(p string, dir bool) *Error {
	if dir {
		return cannot(CodeAlreadyExists, "move to", p, "the destination is a directory; end it with / to move into it", nil)
	}
	return cannot(CodeAlreadyExists, "move to", p, "the destination exists; set overwrite to true to replace it", nil)
}

// ErrMoveDirectoryNoReplace is FS_IO_ERROR `cannot move "<p>": this file
// system cannot move a directory without risking replacing the
// destination`: RENAME_NOREPLACE is refused (EINVAL) and a directory, unlike
// a file, cannot fall back to link and unlink.
func ErrMoveDirectoryNoReplace(p string) *Error {
	return cannot(CodeIOError, "move", p, "this file system cannot move a directory without risking replacing the destination", nil)
}

// ErrMoveIntoItself is FS_INVALID_PATH `cannot move "<p>": the destination
// is the source or inside it`.
func ErrMoveIntoItself(p string) *Error {
	return cannot(CodeInvalidPath, "move", p, "the destination is the source or inside it", nil)
}

// ErrWorkspaceRoot is FS_SANDBOX_DENIED `cannot <op> "<p>": it is the
// workspace root`, op "delete" or "move": the confinement root itself is
// never removed or moved.
func ErrWorkspaceRoot(op, p string) *Error {
	return cannot(CodeSandboxDenied, op, p, "it is the workspace root", nil)
}

// ErrExistsNotDirectory is FS_NOT_DIRECTORY `cannot mkdir "<p>": a file
// that is not a directory exists there`, p the path of that entry.
func ErrExistsNotDirectory(p string) *Error {
	return cannot(CodeNotDirectory, "mkdir", p, "a file that is not a directory exists there", nil)
}

// ErrRemoveUnread is FS_NOT_OBSERVED `remove requires reading "<p>" first`:
// the policy's fs/remove-intent for a file the conversation never saw (or
// a call with no conversation).
func ErrRemoveUnread(p string) *Error {
	return newError(CodeNotObserved, "remove", p, `remove requires reading "`+Display(p)+`" first`, nil)
}
