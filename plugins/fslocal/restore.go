package fslocal

import (
	"context"
	"io/fs"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// RestoreBytes puts data back into the regular file t verbatim, the rewind
// of the checkpoint plugin ([fsapi.Restorer]): no BOM or line-ending rule
// of WriteText's [D2] applies. It runs as WriteText does: under t's
// per-target lock (and, for a file with several links under hardLinks
// "preserve", its inode lock), after the recovery of a killed in-place
// rewrite of t, and through the same commit, so the file holds the old
// bytes or data, never a mix, and data is durable when it returns.
//
// The checks run in this order: FS_ABORTED `restore aborted` (on entry,
// while waiting for the lock, before creating parents, before the commit
// and before the rename, which leaves the file as it was); FS_PROTECTED for
// a protected file (Refuse); FS_NOT_REGULAR_FILE `cannot restore "<p>": not
// a regular file` for an existing non-file; then expect:
// FS_STALE_VERSION `cannot restore "<p>": file changed since it was read`
// when expect.Absent is set and the target exists, when it is not set and
// the target is absent, and when the file is at another version than
// expect.Version and its bytes do not digest to expect.Digest ([D24],
// fresh). A create (expect.Absent) publishes without replacing: a file that
// appears at the key during the call is never clobbered and the call fails
// with that same FS_STALE_VERSION. Permission and confinement failures are
// WriteText's, worded for op "restore".
//
// A new file is created 0666 minus the umask, with its missing parents
// (0777 minus the umask); an existing file keeps its permission bits and,
// as root, its owner. Through a symlink the real file is written and the
// link survives; a dangling link counts as absent and is replaced by a
// regular file. It returns t's version after the restore.
func (p *Provider) RestoreBytes(ctx context.Context, t fsapi.Target, data []byte, expect fsapi.RestoreExpect) (fsapi.Version, error) {
	const op = "restore"
	if err := ctx.Err(); err != nil {
		return "", fsapi.ErrAborted(op, err)
	}
	if err := p.Refuse(ctx, t, op); err != nil {
		return "", err
	}
	lk, release, err := p.lockTarget(ctx, t, op)
	if err != nil {
		return "", err
	}
	defer release()

	fi, err := p.statKey(t.Key)
	switch {
	case err != nil && absent(err):
		fi = nil
	case err != nil:
		return "", coded(op, t.DisplayPath, err)
	case !fi.Mode().IsRegular():
		return "", fsapi.ErrNotRegularFile(op, t.DisplayPath)
	default:
		if fi, err = p.lockInPlace(ctx, lk, t, op, fi); err != nil {
			return "", err
		}
		if fi == nil {
			break // gone while waiting for the inode lock: absent
		}
		if fi, err = p.recoverBefore(ctx, t, op, fi); err != nil {
			return "", err
		}
	}
	if err := p.checkRestore(ctx, t, expect, fi); err != nil {
		return "", err
	}

	c := change{op: op, data: string(data), prior: fi, lock: lk, exclusive: expect.Absent, mode: expect.Mode}
	if err := p.commit(ctx, t, c); err != nil {
		if c.exclusive && fsapi.HasCode(err, fsapi.CodeNotObserved) {
			// The exclusive publish met a file that appeared after the
			// check: for a restore, as for an entry there at the check,
			// the expectation does not hold.
			return "", fsapi.ErrChanged(op, t.DisplayPath)
		}
		return "", err
	}
	return p.reprobe(t, op)
}

// checkRestore applies expect to the probed state of t (fi, nil when t is
// absent), as checkIntent does for a write: FS_STALE_VERSION `cannot
// restore "<p>": file changed since it was read` when an entry exists
// although expect.Absent is set, when the file is absent although it is
// not, or when fresh finds the file at another version without
// expect.Digest's bytes.
func (p *Provider) checkRestore(ctx context.Context, t fsapi.Target, expect fsapi.RestoreExpect, fi fs.FileInfo) error {
	switch {
	case expect.Absent && fi != nil, !expect.Absent && fi == nil:
		return fsapi.ErrChanged("restore", t.DisplayPath)
	case expect.Absent:
		return nil
	}
	return p.fresh(ctx, t, "restore", expect.Version, expect.Digest, fi)
}

var _ fsapi.Restorer = (*Provider)(nil)
