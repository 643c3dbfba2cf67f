package fsapi

import (
	"context"
	"io/fs"
)

// RestoreExpect is what a [Restorer] requires of the target before it
// restores: with Absent, that no entry exists at the target; otherwise that
// the target is a regular file at Version, or, when Digest is not zero,
// whose bytes digest to Digest ([D24]'s freshness by content). It is the
// checkpoint plugin's own check that the file still holds what the tools
// last made of it; it replaces read-before-edit for a rewind. Mode, when
// not zero, is not a requirement but the permission bits (fs.ModePerm)
// the file has after the restore, new or existing: those it had at the
// moment rewound to.
type RestoreExpect struct {
	Absent  bool
	Version Version
	Digest  Digest
	Mode    fs.FileMode
}

// Restorer is the optional capability of putting exact bytes back into a
// regular file: a rewind of the checkpoint plugin. RestoreBytes creates or
// replaces t with data verbatim (no BOM or line-ending rule of WriteText's
// [D2]), atomically and durably, under the same per-target lock, commit,
// confinement and protected-file check as WriteText, and returns the file's
// version after it. Without expect.Mode an existing file keeps its
// permission bits and a new one is created 0666 minus the umask; with it,
// the file gets expect.Mode's. Missing parents are created. Errors, in
// order: FS_ABORTED `restore aborted`; FS_PROTECTED for a protected file;
// FS_NOT_REGULAR_FILE `cannot restore "<p>": not a regular file` for an
// existing non-file; FS_STALE_VERSION `cannot restore "<p>": file changed
// since it was read` when expect does not hold (an entry exists although
// Absent is set, or the file is absent, or at another version without the
// digest's bytes); permission and confinement errors as for WriteText, with
// op "restore". A create never replaces a file that appears at the key
// during the call.
type Restorer interface {
	RestoreBytes(ctx context.Context, t Target, data []byte, expect RestoreExpect) (Version, error)
}
