package fslocal

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/uuid"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// moveAcross moves source to destination across file systems, never
// leaving a half-moved entry: the entry is copied to a staging name beside
// the destination (`.<base>.<uuid>.dsh-tmp`, the staging name of writes),
// every file and directory of the copy fsynced; the copy is published under
// the destination's name (without replacing, unless overwrite) and its
// directory fsynced; only then is the source removed and its directory
// fsynced. A process killed before the publication leaves the source whole
// (and a staging copy, which a later write in that directory sweeps when it
// is a file); killed after it, both whole. Files keep their permission
// bits and modification time, links their text; a special file cannot be
// copied (FS_NOT_REGULAR_FILE `cannot move "<p>": not a regular file`).
func (p *Provider) moveAcross(ctx context.Context, source, destination fsapi.Target, overwrite bool) error {
	const op = "move"
	dir := filepath.Dir(destination.Key)
	stage := joinName(dir, stagingPrefix(filepath.Base(destination.Key))+uuid.NewString()+stagingSuffix)
	if err := p.copyEntry(ctx, source, source.Key, stage); err != nil {
		p.tree.removeAll(stage)
		return err
	}
	if err := p.syncDir(nil, dir); err != nil {
		p.tree.removeAll(stage)
		return coded(op, destination.DisplayPath, err)
	}
	if err := ctx.Err(); err != nil {
		p.tree.removeAll(stage)
		return fsapi.ErrAborted(op, err)
	}
	err := p.renameEntry(stage, destination.Key, overwrite)
	if errors.Is(err, syscall.EINVAL) && !overwrite {
		fi, lerr := p.tree.lstat(stage)
		if lerr == nil && fi.IsDir() {
			p.tree.removeAll(stage)
			return fsapi.ErrMoveDirectoryNoReplace(source.DisplayPath)
		}
		if err = p.tree.link(stage, destination.Key); err == nil {
			p.tree.remove(stage)
		}
	}
	if err != nil {
		p.tree.removeAll(stage)
		if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
			return fsapi.ErrDestinationExists(destination.DisplayPath, false)
		}
		return coded(op, destination.DisplayPath, err)
	}
	if err := p.syncDir(nil, dir); err != nil {
		return coded(op, destination.DisplayPath, err)
	}
	if err := p.tree.removeAll(source.Key); err != nil {
		return coded(op, source.DisplayPath, err)
	}
	return nil
}

// copyEntry copies the entry at the key from to the absent name to (both
// in the tree), recursively for a directory, fsyncing each file and
// directory it makes.
func (p *Provider) copyEntry(ctx context.Context, source fsapi.Target, from, to string) error {
	const op = "move"
	if err := ctx.Err(); err != nil {
		return fsapi.ErrAborted(op, err)
	}
	fi, err := p.tree.lstat(from)
	if err != nil {
		return coded(op, source.DisplayPath, err)
	}
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		text, err := p.tree.readlink(from)
		if err == nil {
			err = p.tree.symlink(text, to)
		}
		return coded(op, source.DisplayPath, err)
	case m.IsRegular():
		return p.copyFile(ctx, source, from, to, fi)
	case m.IsDir():
		if err := p.tree.mkdir(to, 0o700); err != nil {
			return coded(op, source.DisplayPath, err)
		}
		names, err := p.tree.readNames(from)
		if err != nil {
			return coded(op, source.DisplayPath, err)
		}
		for _, n := range names {
			if err := p.copyEntry(ctx, source, joinName(from, n), joinName(to, n)); err != nil {
				return err
			}
		}
		if err := p.tree.chmod(to, m.Perm()); err != nil {
			return coded(op, source.DisplayPath, err)
		}
		return coded(op, source.DisplayPath, p.syncDir(nil, to))
	}
	return fsapi.ErrNotRegularFile(op, source.DisplayPath)
}

// copyFile copies the regular file from (whose lstat is fi) to the new
// name to: its bytes, then fsync, its permission bits and its modification
// time.
func (p *Provider) copyFile(ctx context.Context, source fsapi.Target, from, to string, fi fs.FileInfo) error {
	const op = "move"
	in, err := p.tree.openFile(from, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return coded(op, source.DisplayPath, err)
	}
	defer in.Close()
	out, err := p.tree.openFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return coded(op, source.DisplayPath, err)
	}
	_, err = io.Copy(out, ctxReader{ctx, in})
	if err == nil {
		err = out.Sync()
	}
	if err == nil {
		err = out.Chmod(fi.Mode().Perm())
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = p.tree.chtimes(to, fi.ModTime(), fi.ModTime())
	}
	if cerr := ctx.Err(); cerr != nil {
		return fsapi.ErrAborted(op, cerr)
	}
	return coded(op, source.DisplayPath, err)
}

// ctxReader reads from r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}
