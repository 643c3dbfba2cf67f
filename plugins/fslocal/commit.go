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

// change is one mutation ready to commit (contract §3.7 steps 7–10, shared
// by §3.8 step 9).
type change struct {
	// op is "write", "edit" or "restore": it words the abort (`<op>
	// aborted`) and permission (`cannot <op> "<p>": permission denied`)
	// errors.
	op string
	// data is the new content.
	data string
	// prior is the followed stat of the existing regular file, nil when the
	// target is absent; src that file, open for reading, when the caller has
	// it (nil: the commit opens it when it needs it).
	prior fs.FileInfo
	src   *regularFile
	// exclusive asks a create to publish without replacing: a file that
	// appeared at the key since the probe is never clobbered, and the commit
	// fails FS_NOT_OBSERVED as if it had existed at the check ([D18]).
	exclusive bool
	// lock is the held directory lock, whose descriptor the commit reuses.
	lock *dirLock
	// mode, when not zero, is the permission bits the file gets (a
	// restore's fsapi.RestoreExpect.Mode) instead of the old file's or
	// 0666 minus the umask.
	mode fs.FileMode
}

// commit puts c.data at t's key. A multi-link file under hardLinks
// "preserve" is rewritten in place; every other commit is a staged
// replace. Until the commit point (the in-place open, or the rename) a
// cancelled ctx leaves the target untouched.
func (p *Provider) commit(ctx context.Context, t fsapi.Target, c change) error {
	if err := ctx.Err(); err != nil {
		return fsapi.ErrAborted(c.op, err)
	}
	dir := filepath.Dir(t.Key)
	if c.prior == nil {
		// New parents get 0777 minus the umask, which mkdir(2) applies.
		if err := p.tree.mkdirAll(dir, 0o777); err != nil {
			return coded(c.op, t.DisplayPath, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fsapi.ErrAborted(c.op, err)
	}
	if c.prior != nil && nlink(c.prior) > 1 && p.hardLinks == HardLinksPreserve {
		return p.commitInPlace(t, c)
	}
	return p.commitStaged(ctx, t, c)
}

// commitStaged writes data to a staging file beside the key, fsyncs it,
// gives it the old file's owner, permission bits, `user.*` extended
// attributes and POSIX access ACL (or 0666 minus the umask for a new file,
// [D3]), renames it over the key and fsyncs the directory. Replacing a file
// the process may not write, or whose owner it cannot keep, fails
// FS_PERMISSION_DENIED before anything changes ([D19]).
// On failure the staging file is removed; nothing is left behind. An
// exclusive create is published by link(2), which never replaces an
// existing name, and the staging name is then unlinked.
func (p *Provider) commitStaged(ctx context.Context, t fsapi.Target, c change) error {
	op := c.op
	dir, base := filepath.Dir(t.Key), filepath.Base(t.Key)
	held := c.lock.at(dir)
	if c.prior != nil {
		if err := p.tree.writable(held, t.Key); err != nil {
			return coded(op, t.DisplayPath, err)
		}
	}
	p.sweep(held, dir)
	perm := fs.FileMode(0o666) // the umask applies: 0666 &^ umask for a new file
	if c.prior != nil {
		perm = 0o600 // owner-only until the old file's bits are set
	}
	f, tmp, err := p.createStaging(dir, base, perm)
	if err != nil {
		return coded(op, t.DisplayPath, err)
	}
	fail := func(err error) error { return p.abandon(f, tmp, err) }
	if err := fsapi.WriteProgress(ctx, f, c.data); err != nil {
		return fail(coded(op, t.DisplayPath, err))
	}
	if err := f.Sync(); err != nil {
		return fail(coded(op, t.DisplayPath, err))
	}
	if c.prior != nil {
		if err := keepOwner(f, c.prior); err != nil {
			return fail(coded(op, t.DisplayPath, err))
		}
		// Only the permission bits: setuid, setgid and sticky are dropped.
		if err := f.Chmod(c.prior.Mode().Perm()); err != nil {
			return fail(coded(op, t.DisplayPath, err))
		}
		src := c.src
		if src == nil {
			if src, err = p.openRegular(ctx, t, op); err != nil {
				return fail(err)
			}
			defer src.Close()
		}
		if err := keepXattrs(src, f); err != nil {
			return fail(coded(op, t.DisplayPath, err))
		}
	}
	if c.mode != 0 {
		if err := f.Chmod(c.mode.Perm()); err != nil {
			return fail(coded(op, t.DisplayPath, err))
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(fsapi.ErrAborted(op, err))
	}
	// The staging file stays open, and so locked against sweeps, until it
	// has become the target.
	if c.exclusive && c.prior == nil {
		err := p.tree.link(tmp, t.Key)
		if errors.Is(err, fs.ErrExist) {
			// A dangling link counts as missing (contract §3.2, E28): it
			// is replaced, and what it points at is not created.
			err = p.replaceDangling(held, tmp, t.Key)
		}
		switch {
		case errors.Is(err, fs.ErrExist):
			return fail(fsapi.ErrOverwriteUnread(t.DisplayPath))
		case err != nil:
			return fail(coded(op, t.DisplayPath, err))
		}
		// The key holds the data now; the staging name goes.
		p.tree.remove(tmp)
	} else if err := p.tree.rename(tmp, t.Key); err != nil {
		return fail(coded(op, t.DisplayPath, err))
	}
	// The data is in place and fsynced; a close error now changes nothing.
	f.Close()
	if err := p.syncDir(held, dir); err != nil {
		return coded(op, t.DisplayPath, err)
	}
	return nil
}

// replaceDangling publishes the staging file tmp at key, in the directory
// held (nil: opened here), when key is a dangling symlink, without ever
// replacing anything else ([D18]): the two names are exchanged atomically
// (renameat2 RENAME_EXCHANGE), and when what came back is not a symlink (a
// file that appeared in between) they are exchanged back. tmp then names
// the old link, which the caller removes with the staging name. Anything
// at key but a dangling link is fs.ErrExist; where the file system cannot
// exchange, the link is replaced by a rename after a second check.
func (p *Provider) replaceDangling(held *os.File, tmp, key string) error {
	if !p.dangles(key) {
		return fs.ErrExist
	}
	d := held
	if d == nil {
		var err error
		if d, err = p.tree.openFile(filepath.Dir(key), os.O_RDONLY|syscall.O_DIRECTORY, 0); err != nil {
			return err
		}
		defer d.Close()
	}
	dirfd, a, b := int(d.Fd()), filepath.Base(tmp), filepath.Base(key)
	err := unix.Renameat2(dirfd, a, dirfd, b, unix.RENAME_EXCHANGE)
	switch {
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		if !p.dangles(key) {
			return fs.ErrExist
		}
		return unix.Renameat(dirfd, a, dirfd, b)
	case err != nil:
		return err
	}
	var back unix.Stat_t
	if err := unix.Fstatat(dirfd, a, &back, unix.AT_SYMLINK_NOFOLLOW); err == nil && back.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil
	}
	if err := unix.Renameat2(dirfd, a, dirfd, b, unix.RENAME_EXCHANGE); err != nil {
		return err
	}
	return fs.ErrExist
}

// dangles reports whether key is a symlink whose target does not exist.
func (p *Provider) dangles(key string) bool {
	fi, err := p.tree.lstat(key)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	_, err = p.statKey(key)
	return absent(err)
}

// abandon removes and closes a staging file after err. If that fails too,
// the result is FS_NOT_FOUND `write failed (<m1>) and temp cleanup failed
// (<m2>)` (or `temp close failed`), as contract §3.7 step 10 words it.
func (p *Provider) abandon(f *os.File, tmp string, err error) error {
	rerr := p.tree.remove(tmp)
	cerr := f.Close()
	switch {
	case rerr != nil && !absent(rerr):
		return fsapi.ErrWriteDoubleFault(err, rerr, "cleanup")
	case cerr != nil:
		return fsapi.ErrWriteDoubleFault(err, cerr, "close")
	}
	return err
}

// syncDir fsyncs the directory dir, through held when it is open already
// (the locked directory), so a rename in it is durable. A filesystem that
// cannot fsync a directory (EINVAL, ENOTSUP) is not an error.
func (p *Provider) syncDir(held *os.File, dir string) error {
	d := held
	if d == nil {
		var err error
		if d, err = p.tree.openFile(dir, os.O_RDONLY, 0); err != nil {
			return err
		}
		defer d.Close()
	}
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// reprobe returns t's version after a mutation, or `missing:<key>` when the
// file is already gone (contract §3.7 step 11, §3.3).
func (p *Provider) reprobe(t fsapi.Target, op string) (fsapi.Version, error) {
	fi, err := p.statKey(t.Key)
	switch {
	case err == nil:
		return versionOf(fi), nil
	case absent(err):
		return missingVersion(t.Key), nil
	}
	return "", coded(op, t.DisplayPath, err)
}
