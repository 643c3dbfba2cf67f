package fslocal

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// moveHook runs right before a move's rename, under its locks; tests set it
// to act as a creator that takes no lock (another program).
var moveHook = func() {}

// renameNoReplaceDisabled makes renameNoReplace fail EINVAL, as on a file
// system without RENAME_NOREPLACE; tests set it to cover the fallbacks.
var renameNoReplaceDisabled bool

// Move moves the entry source names to destination (keys from
// ResolveEntry; fsapi.Mover): a file, a symlink itself, a special file or a
// directory with everything in it.
//
// Locks: both keys, in byte order of the key, first in process (the FIFO
// locks of contract §3.9), then across processes (the directory flocks,
// the parents' in the same order, one flock when both share it), so a→b in
// one process and b→a in another cannot wait on each other in a cycle.
//
// Under the locks, in this order: FS_ABORTED `move aborted`; FS_INVALID_PATH
// `cannot move "<p>": the destination is the source or inside it`;
// FS_SANDBOX_DENIED `cannot move "<p>": it is the workspace root`;
// FS_PROTECTED when the source or the destination is a protected file, or
// a directory that holds one (Refuse); the source as Remove checks it (op
// "move"); an existing destination:
// FS_ALREADY_EXISTS `cannot move to "<p>": the destination is a
// directory; end it with / to move into it`, or without req.Overwrite
// `cannot move to "<p>": the destination exists; set overwrite to true to
// replace it`; then req.Intent on the destination as WriteText checks it
// (op "write"). Missing parents of the destination are created.
//
// The move itself: without Overwrite one renameat2(RENAME_NOREPLACE), so a
// destination created by a racer meanwhile is never replaced (it fails as
// an existing one); where the file system refuses the flag (EINVAL) a
// non-directory is linked at the destination (link(2) never replaces) and
// the source unlinked, and a directory fails FS_IO_ERROR `cannot move
// "<p>": this file system cannot move a directory without risking
// replacing the destination`. With Overwrite, rename(2). Across file
// systems (EXDEV) the entry is copied (moveAcross) and the source removed
// only once the copy is durable under its name. Both parents are fsynced.
func (p *Provider) Move(ctx context.Context, source, destination fsapi.Target, req fsapi.MoveRequest) (fsapi.MoveOutcome, error) {
	const op = "move"
	if err := ctx.Err(); err != nil {
		return fsapi.MoveOutcome{}, fsapi.ErrAborted(op, err)
	}
	if within(source.Key, destination.Key) {
		return fsapi.MoveOutcome{}, fsapi.ErrMoveIntoItself(source.DisplayPath)
	}
	if p.tree.base != "" && (source.Key == p.tree.base || destination.Key == p.tree.base) {
		return fsapi.MoveOutcome{}, fsapi.ErrWorkspaceRoot(op, source.DisplayPath)
	}
	release, err := p.lockPair(ctx, source, destination)
	if err != nil {
		return fsapi.MoveOutcome{}, err
	}
	defer release()

	for _, t := range []fsapi.Target{source, destination} {
		if err := p.Refuse(ctx, t, op); err != nil {
			return fsapi.MoveOutcome{}, err
		}
	}
	if err := p.checkEntry(source, op, req.SourceType, req.SourceGuard); err != nil {
		return fsapi.MoveOutcome{}, err
	}
	dfi, err := p.tree.lstat(destination.Key)
	switch {
	case err != nil && absent(err):
		dfi = nil
	case err != nil:
		return fsapi.MoveOutcome{}, coded("write", destination.DisplayPath, err)
	case dfi.IsDir():
		return fsapi.MoveOutcome{}, fsapi.ErrDestinationExists(destination.DisplayPath, true)
	case !req.Overwrite:
		return fsapi.MoveOutcome{}, fsapi.ErrDestinationExists(destination.DisplayPath, false)
	}
	if err := p.checkIntent(ctx, destination, req.Intent, dfi); err != nil {
		return fsapi.MoveOutcome{}, err
	}
	dstDir, srcDir := filepath.Dir(destination.Key), filepath.Dir(source.Key)
	if dfi == nil {
		if err := p.tree.mkdirAll(dstDir, 0o777); err != nil {
			return fsapi.MoveOutcome{}, coded("write", destination.DisplayPath, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fsapi.MoveOutcome{}, fsapi.ErrAborted(op, err)
	}
	out := fsapi.MoveOutcome{}
	moveHook()
	switch err := p.renameEntry(source.Key, destination.Key, req.Overwrite); {
	case err == nil:
	case errors.Is(err, syscall.EXDEV):
		out.CrossDevice = true
		if err := p.moveAcross(ctx, source, destination, req.Overwrite); err != nil {
			return fsapi.MoveOutcome{}, err
		}
	case errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTEMPTY):
		fi, _ := p.tree.lstat(destination.Key)
		return fsapi.MoveOutcome{}, fsapi.ErrDestinationExists(destination.DisplayPath, fi != nil && fi.IsDir())
	case errors.Is(err, syscall.EINVAL) && req.SourceType == fsapi.TypeDirectory:
		return fsapi.MoveOutcome{}, fsapi.ErrMoveDirectoryNoReplace(source.DisplayPath)
	case errors.Is(err, syscall.EINVAL):
		if err := p.linkThenUnlink(source, destination); err != nil {
			return fsapi.MoveOutcome{}, err
		}
	default:
		return fsapi.MoveOutcome{}, coded(op, source.DisplayPath, err)
	}
	if err := p.syncDir(nil, dstDir); err != nil {
		return fsapi.MoveOutcome{}, coded(op, destination.DisplayPath, err)
	}
	if srcDir != dstDir {
		if err := p.syncDir(nil, srcDir); err != nil {
			return fsapi.MoveOutcome{}, coded(op, source.DisplayPath, err)
		}
	}
	fi, err := p.tree.lstat(destination.Key)
	switch {
	case err == nil:
		out.Version = versionOf(fi)
	case absent(err):
		out.Version = missingVersion(destination.Key)
	default:
		return fsapi.MoveOutcome{}, coded(op, destination.DisplayPath, err)
	}
	return out, nil
}

// lockPair takes the locks of both targets of a move in byte order of the
// key: the in-process FIFO locks, then the directory flocks (one when both
// keys lock the same directory). A cancellation is FS_ABORTED `move
// aborted`. The returned release drops them all, once.
func (p *Provider) lockPair(ctx context.Context, a, b fsapi.Target) (func(), error) {
	const op = "move"
	if b.Key < a.Key {
		a, b = b, a
	}
	var undo []func()
	release := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	fail := func(t fsapi.Target, err error) (func(), error) {
		release()
		if cerr := ctx.Err(); cerr != nil {
			return nil, fsapi.ErrAborted(op, cerr)
		}
		return nil, coded(op, t.DisplayPath, err)
	}
	for _, t := range []fsapi.Target{a, b} {
		r, err := p.locks.acquire(ctx, t.Key)
		if err != nil {
			return fail(t, err)
		}
		undo = append(undo, r)
	}
	first, err := p.lockDir(ctx, a.Key)
	if err != nil {
		return fail(a, err)
	}
	undo = append(undo, first.unlock)
	if at, err := p.nearestDir(lockedDirOf(p, b.Key)); err == nil && at == first.path {
		return release, nil // one directory: its flock is held already
	}
	second, err := p.lockDir(ctx, b.Key)
	if err != nil {
		return fail(b, err)
	}
	undo = append(undo, second.unlock)
	return release, nil
}

// lockedDirOf is the directory lockDir starts from for key: its parent, or
// the root for the root itself.
func lockedDirOf(p *Provider, key string) string {
	dir := filepath.Dir(key)
	if !p.tree.inside(dir) {
		return p.tree.base
	}
	return dir
}

// renameEntry renames the key from to the key to: with overwrite by
// rename(2), else by renameat2(RENAME_NOREPLACE) relative to the two
// parents, each opened through the tree (so under confinement through the
// root handle, and the rename names one component in each).
func (p *Provider) renameEntry(from, to string, overwrite bool) error {
	if overwrite {
		return p.tree.rename(from, to)
	}
	return p.renameNoReplace(from, to)
}

// renameNoReplace is renameat2(from, to, RENAME_NOREPLACE) through
// descriptors of the two parents opened through the tree: EEXIST when to
// exists, EINVAL where the file system does not support the flag, EXDEV
// across file systems.
func (p *Provider) renameNoReplace(from, to string) error {
	if renameNoReplaceDisabled {
		return &os.LinkError{Op: "renameat2", Old: from, New: to, Err: syscall.EINVAL}
	}
	fd, err := p.tree.openFile(filepath.Dir(from), os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer fd.Close()
	td, err := p.tree.openFile(filepath.Dir(to), os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer td.Close()
	err = unix.Renameat2(int(fd.Fd()), filepath.Base(from), int(td.Fd()), filepath.Base(to), unix.RENAME_NOREPLACE)
	if err != nil {
		return &os.LinkError{Op: "renameat2", Old: from, New: to, Err: err}
	}
	return nil
}

// linkThenUnlink moves a non-directory where RENAME_NOREPLACE is refused:
// link(2) at the destination, which never replaces (an existing one fails
// FS_ALREADY_EXISTS), then unlink of the source. A crash between the two
// leaves both names on the one inode: nothing is half-moved.
func (p *Provider) linkThenUnlink(source, destination fsapi.Target) error {
	if err := p.tree.link(source.Key, destination.Key); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fsapi.ErrDestinationExists(destination.DisplayPath, false)
		}
		return coded("move", source.DisplayPath, err)
	}
	if err := p.tree.remove(source.Key); err != nil {
		return coded("move", source.DisplayPath, err)
	}
	return nil
}

var _ fsapi.Mover = (*Provider)(nil)
