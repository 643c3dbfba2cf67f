package fslocal

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Cross-process locks (contract §3.9 [D18]).
//
// Every WriteText and EditText takes, after the in-process FIFO lock of its
// key, an flock(LOCK_EX) on the target's parent directory, opened through
// the tree (so under confinement through the root handle), and keeps it
// through the commit and the final re-probe. Another process running this
// provider takes the same lock, so two servers on one workspace never lose
// an update. No lock file is created: the lock lives on the directory's
// open file description and the kernel drops it when the process dies,
// however it dies. The granularity is one directory: mutations of
// different files in one directory are serialised, even within a process
// (flock locks conflict between descriptors).
//
// When the parent does not exist yet (a create with missing parents), the
// nearest existing ancestor is locked; once locked, if a nearer ancestor has
// appeared meanwhile, the lock moves down to it, so every process ends up
// locking the same, deepest existing directory.
//
// A commit that will rewrite a file in place (several hard links, under
// "preserve") also locks the file's inode, after the directory: the
// in-process lock of its dev:ino key, then an flock on the file itself
// (lockInode). Two link names in different directories share no key and no
// directory, so this is the lock they share; the version check, the commit
// and the re-probe run under it. The order key, directory, inode is the
// same everywhere, so no caller waits on another in a cycle. Creates and
// staged replaces never take it.
//
// flock cannot be interrupted by a context, so waiting polls LOCK_NB with a
// growing pause (at most osLockMaxPause), checking ctx between attempts.
// Where flock is not supported (ENOLCK, EOPNOTSUPP: some network mounts),
// the lock is skipped and safety falls back to the in-process lock.

// osLockMaxPause is the longest pause between two attempts at a busy
// directory lock.
const osLockMaxPause = 20 * time.Millisecond

// dirLock is a held cross-process lock: the open directory it is taken on
// (nil where flock is not supported) and that directory's path. While it is
// held, the commit reuses the descriptor to sweep, check access and fsync
// the directory instead of opening it again.
type dirLock struct {
	f    *os.File
	path string
	// inode is the inode lock of a file rewritten in place, taken after
	// the directory's (lockInode), nil otherwise.
	inode *inodeLock
}

// at returns the locked directory's descriptor when it is dir, else nil.
func (l *dirLock) at(dir string) *os.File {
	if l == nil || l.f == nil || l.path != dir {
		return nil
	}
	return l.f
}

// unlock drops the inode lock, if any, then the directory lock (closing
// the descriptor drops the flock).
func (l *dirLock) unlock() {
	if l.inode != nil {
		l.inode.unlock()
		l.inode = nil
	}
	if l.f != nil {
		l.f.Close()
	}
}

// lockDir takes the cross-process lock for key. It fails with ctx.Err()
// when ctx ends while waiting, or with the open error of the directory (a
// confinement refusal, EACCES, ...).
func (p *Provider) lockDir(ctx context.Context, key string) (*dirLock, error) {
	dir := filepath.Dir(key)
	if !p.tree.inside(dir) {
		dir = p.tree.base // the key is the root itself, whose parent is outside
	}
	at := dir
	for {
		d, err := p.tree.openFile(at, os.O_RDONLY|syscall.O_DIRECTORY, 0)
		if err != nil {
			if absent(err) && at != "/" && at != p.tree.base {
				at = filepath.Dir(at) // not created yet: lock the nearest ancestor
				continue
			}
			return nil, err
		}
		if err := waitFlock(ctx, d); err != nil {
			d.Close()
			if unsupportedLock(err) {
				return &dirLock{}, nil
			}
			return nil, err
		}
		if at == dir {
			return &dirLock{f: d, path: at}, nil
		}
		if now, err := p.nearestDir(dir); err == nil && now == at {
			return &dirLock{f: d, path: at}, nil
		}
		d.Close() // a nearer ancestor appeared: lock that one instead
		at = dir
	}
}

// nearestDir returns dir, or its nearest ancestor that exists as a
// directory in the tree (the root, or "/", at worst).
func (p *Provider) nearestDir(dir string) (string, error) {
	for {
		fi, err := p.tree.stat(dir)
		switch {
		case err == nil && fi.IsDir():
			return dir, nil
		case err != nil && !absent(err):
			return "", err
		case dir == "/" || dir == p.tree.base:
			return dir, nil
		}
		dir = filepath.Dir(dir)
	}
}

// waitFlock takes LOCK_EX on f, polling LOCK_NB until it is free or ctx
// ends (ctx.Err()).
func waitFlock(ctx context.Context, f *os.File) error {
	pause := 50 * time.Microsecond
	for {
		err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		pause = min(pause*2, osLockMaxPause)
	}
}

// unsupportedLock reports whether err says the file system has no working
// flock.
func unsupportedLock(err error) bool {
	return errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EINVAL)
}

// lockTarget takes both locks of t for op ("write", "edit" or "restore"):
// first the in-process FIFO lock of its key, then the cross-process
// directory lock (contract §3.9). A cancellation while waiting for either
// is FS_ABORTED `<op> aborted`; a failure to open the directory is coded
// for op. The returned release drops both, once.
func (p *Provider) lockTarget(ctx context.Context, t fsapi.Target, op string) (*dirLock, func(), error) {
	release, err := p.locks.acquire(ctx, t.Key)
	if err != nil {
		return nil, nil, fsapi.ErrAborted(op, err)
	}
	lk, err := p.lockDir(ctx, t.Key)
	if err != nil {
		release()
		if cerr := ctx.Err(); cerr != nil {
			return nil, nil, fsapi.ErrAborted(op, cerr)
		}
		return nil, nil, coded(op, t.DisplayPath, err)
	}
	return lk, func() { lk.unlock(); release() }, nil
}

// inodeLock is a held lock on the inode of a file rewritten in place
// (contract §3.9 [D18], §3.7 [D9]): the in-process FIFO lock of the key
// inodeKey(dev, ino) and an flock(LOCK_EX) on the open file itself. Two hard
// links of one file in different directories have different keys and
// different directory locks; this lock is the one they share.
type inodeLock struct {
	f       *os.File
	release func()
}

// inodeKey is the in-process lock key of the inode (dev, ino). It cannot
// collide with a target key, which is an absolute path.
func inodeKey(dev, ino uint64) string {
	return "inode:" + strconv.FormatUint(dev, 10) + ":" + strconv.FormatUint(ino, 10)
}

// lockInode takes, under lk, the inode lock of t when fi (t's followed
// stat, taken under lk) says the commit will rewrite it in place: a regular
// file with several links under hardLinks "preserve". The order is always
// key, directory, then inode, so no two callers wait on each other in a
// cycle. Once locked, the name is probed again: when it no longer refers to
// the locked inode (it was replaced meanwhile) the lock moves to the new
// one. It returns t's stat taken under every lock, which the caller uses
// for its version check; a failure to stat is returned as is, absence
// included. Waiting honours ctx (ctx.Err()). Where flock is not supported
// the in-process part is kept.
func (p *Provider) lockInode(ctx context.Context, lk *dirLock, t fsapi.Target, fi fs.FileInfo) (fs.FileInfo, error) {
	for range 8 {
		if lk == nil || fi == nil || !fi.Mode().IsRegular() || nlink(fi) < 2 || p.hardLinks != HardLinksPreserve {
			return fi, nil
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return fi, nil
		}
		release, err := p.locks.acquire(ctx, inodeKey(uint64(st.Dev), st.Ino))
		if err != nil {
			return nil, err
		}
		f, err := p.tree.openFile(t.Key, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			release()
			return nil, err
		}
		held := &inodeLock{f: f, release: release}
		if err := waitFlock(ctx, f); err != nil && !unsupportedLock(err) {
			held.unlock()
			return nil, err
		}
		locked, err := f.Stat()
		if err == nil {
			fi, err = p.statKey(t.Key)
		}
		if err != nil {
			held.unlock()
			return nil, err
		}
		if os.SameFile(locked, fi) && sameStat(st, locked) {
			lk.inode = held
			return fi, nil
		}
		held.unlock() // the name moved to another inode meanwhile: lock that one
	}
	return nil, errors.New("the file kept being replaced")
}

// sameStat reports whether the locked file is the inode st describes.
func sameStat(st *syscall.Stat_t, locked fs.FileInfo) bool {
	ls, ok := locked.Sys().(*syscall.Stat_t)
	return ok && ls.Dev == st.Dev && ls.Ino == st.Ino
}

// unlock drops the inode lock: the flock (by closing the file), then the
// in-process lock.
func (l *inodeLock) unlock() {
	l.f.Close()
	l.release()
}

// lockInPlace is lockInode for op ("read", "write", "edit" or "restore"): a
// cancellation is FS_ABORTED `<op> aborted`, other failures are coded for
// op, and a target gone meanwhile gives a nil stat and no error.
func (p *Provider) lockInPlace(ctx context.Context, lk *dirLock, t fsapi.Target, op string, fi fs.FileInfo) (fs.FileInfo, error) {
	fi, err := p.lockInode(ctx, lk, t, fi)
	switch {
	case err == nil && fi != nil && !fi.Mode().IsRegular():
		return nil, fsapi.ErrNotRegularFile(op, t.DisplayPath)
	case err == nil:
		return fi, nil
	case ctx.Err() != nil:
		return nil, fsapi.ErrAborted(op, ctx.Err())
	case absent(err):
		return nil, nil
	}
	return nil, coded(op, t.DisplayPath, err)
}
