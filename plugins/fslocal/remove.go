package fslocal

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Remove removes the entry t names (a key from ResolveEntry): a file, a
// symlink itself, a special file or an empty directory (fsapi.Remover),
// under t's per-target and directory locks (contract §3.9), then fsyncs
// the parent so the removal is durable.
//
// The checks run in this order: FS_ABORTED `delete aborted` (on entry,
// while waiting for the locks, before the unlink); FS_SANDBOX_DENIED
// `cannot delete "<p>": it is the workspace root` for the confinement root;
// FS_PROTECTED for a protected file, or a directory that holds one
// (Refuse);
// FS_NOT_FOUND `cannot delete "<p>": not found` when it is absent;
// FS_STALE_VERSION `cannot delete "<p>": file changed since it was read`
// when its type is no longer req.Type, or it is a file whose version is not
// req.Guard's; FS_DIRECTORY_NOT_EMPTY for a directory with entries.
// EACCES or EPERM give FS_PERMISSION_DENIED `cannot delete "<p>":
// permission denied`; other failures pass through uncoded.
func (p *Provider) Remove(ctx context.Context, t fsapi.Target, req fsapi.RemoveRequest) error {
	const op = "delete"
	if err := ctx.Err(); err != nil {
		return fsapi.ErrAborted(op, err)
	}
	if t.Key == p.tree.base && p.tree.base != "" {
		return fsapi.ErrWorkspaceRoot(op, t.DisplayPath)
	}
	lk, release, err := p.lockTarget(ctx, t, op)
	if err != nil {
		return err
	}
	defer release()
	if err := p.Refuse(ctx, t, op); err != nil {
		return err
	}
	if err := p.checkEntry(t, op, req.Type, req.Guard); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fsapi.ErrAborted(op, err)
	}
	if err := p.tree.remove(t.Key); err != nil {
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return fsapi.ErrDirectoryNotEmpty(t.DisplayPath)
		}
		if absent(err) {
			return fsapi.ErrNotFound(op, t.DisplayPath, err)
		}
		return coded(op, t.DisplayPath, err)
	}
	dir := filepath.Dir(t.Key)
	return coded(op, t.DisplayPath, p.syncDir(lk.at(dir), dir))
}

// checkEntry checks, under the locks, that the entry at t's key still is
// what the intent was decided for: present (FS_NOT_FOUND `cannot <op>
// "<p>": not found`), of type typ, and for a guarded file at the guard's
// version (FS_STALE_VERSION `cannot <op> "<p>": file changed since it was
// read`).
func (p *Provider) checkEntry(t fsapi.Target, op string, typ fsapi.EntryType, guard *fsapi.RemoveGuard) error {
	fi, err := p.tree.lstat(t.Key)
	switch {
	case err != nil && absent(err):
		return fsapi.ErrNotFound(op, t.DisplayPath, err)
	case err != nil:
		return coded(op, t.DisplayPath, err)
	case entryType(fi) != typ:
		return fsapi.ErrChanged(op, t.DisplayPath)
	case guard != nil && versionOf(fi) != guard.Version:
		return fsapi.ErrChanged(op, t.DisplayPath)
	}
	return nil
}

var _ fsapi.Remover = (*Provider)(nil)
