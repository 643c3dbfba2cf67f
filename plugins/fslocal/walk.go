package fslocal

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// errDirSwapped is the cause when a directory was replaced between its
// listing and its opening (search.md §2.1, Confinement).
var errDirSwapped = errors.New("directory changed while it was searched")

// Walk enumerates the directory t depth first, pre-order, children in byte
// order of their names, never following a symlink (the [fsapi.Walker]
// capability, search.md §2.1).
//
// The root is stat'ed (following a symlink, as Resolve already did) and
// opened through the confinement root handle; every directory below it is
// opened by its single name relative to its already-open parent (openat
// with O_NOFOLLOW|O_DIRECTORY) after an lstat of that name, and the opened
// directory must have the listed device and inode. So the walk never leaves
// the root and a directory swapped for a symlink mid-walk is reported as
// FS_IO_ERROR in that visit's Err and not descended. Types come from the
// directory read (d_type); files are lstat'ed only when opts.FileInfo asks.
// The provider's own scratch files (staging files and marked copies,
// [IsScratchName]) are never visited, as list skips them, and neither are
// the host's ProtectSecret files (by real location, and by identity when
// opts.FileInfo has a file stat'ed; Open refuses them by identity). DirFiles are
// opened with O_NOFOLLOW|O_NONBLOCK and read only when they
// are regular files of at most opts.MaxFileBytes bytes.
//
// Errors for the root: FS_ABORTED `walk aborted`; FS_NOT_FOUND, FS_NOT_DIRECTORY,
// FS_PERMISSION_DENIED or FS_IO_ERROR `cannot search "<p>": …`; under
// confinement FS_SANDBOX_DENIED. The context is checked on entry, before
// every directory is read and before every fn call. Memory: the sorted
// entries of the directories on the current path and one open descriptor
// per level.
func (p *Provider) Walk(ctx context.Context, root fsapi.Target, opts fsapi.WalkOptions, fn func(fsapi.WalkEntry) error) error {
	if err := ctx.Err(); err != nil {
		return fsapi.ErrAborted("walk", err)
	}
	fi, err := p.statKey(root.Key)
	if err != nil {
		return searchRootError(root.DisplayPath, err)
	}
	if !fi.IsDir() {
		return fsapi.ErrSearchNotDirectory(root.DisplayPath)
	}
	dirRoot, err := p.tree.openDir(root.Key)
	if err != nil {
		return searchRootError(root.DisplayPath, err)
	}
	f, err := dirRoot.Open(".")
	dirRoot.Close()
	if err != nil {
		return searchRootError(root.DisplayPath, err)
	}
	defer f.Close()
	w := &walker{ctx: ctx, opts: opts, fn: fn, key: root.Key, display: root.DisplayPath, secrets: p.protectedFiles("read")}
	if err := ctx.Err(); err != nil {
		return fsapi.ErrAborted("walk", err)
	}
	fd := int(f.Fd())
	entries, files, err := w.read(f, fd)
	if err != nil {
		return searchRootError(root.DisplayPath, err)
	}
	err = w.visit(fsapi.WalkEntry{Path: ".", Name: ".", Type: fsapi.TypeDirectory, Target: root, Opened: true, Files: files})
	if err == nil {
		err = w.children(fd, "", entries)
	}
	switch {
	case errors.Is(err, fsapi.SkipAll), errors.Is(err, fsapi.SkipDir):
		return nil
	}
	return err
}

// searchRootError words a failure on a searched directory (search.md
// §2.1): absent is FS_NOT_FOUND, a confinement refusal FS_SANDBOX_DENIED,
// EACCES/EPERM FS_PERMISSION_DENIED, anything else FS_IO_ERROR, all as
// `cannot search "<p>": …`; coded errors pass through.
func searchRootError(display string, err error) error {
	if absent(err) {
		return fsapi.ErrSearchNotFound(display, err)
	}
	var fe *fsapi.Error
	if c := coded("search", display, err); errors.As(c, &fe) {
		return c
	}
	return fsapi.ErrSearchIO(display, err)
}

// walker is one Walk in progress.
type walker struct {
	ctx     context.Context
	opts    fsapi.WalkOptions
	fn      func(fsapi.WalkEntry) error
	key     string // the root's key
	display string // the root's display path
	// secrets are the host's ProtectSecret files, never visited.
	secrets []fsapi.ProtectedFile
}

// secret reports whether the entry at key (with identity id, nil when
// unknown) is a ProtectSecret file or lies below one.
func (w *walker) secret(key string, id *fileID) bool {
	return len(w.secrets) > 0 && refusal(w.secrets, fsapi.Target{Key: key}, "read", id) != nil
}

// visit checks the context, then calls fn.
func (w *walker) visit(e fsapi.WalkEntry) error {
	if err := w.ctx.Err(); err != nil {
		return fsapi.ErrAborted("walk", err)
	}
	return w.fn(e)
}

// target returns the target of the entry at rel below the root.
func (w *walker) target(rel string) fsapi.Target {
	return fsapi.Target{Key: joinName(w.key, rel), DisplayPath: joinName(w.display, rel)}
}

// readBatch is how many names a directory read takes between two checks
// of the context (search.md §4.8: a directory of 200,000 entries is not
// one unchecked read).
const readBatch = 4096

// read lists the open directory f (descriptor fd), sorted by name bytes,
// and reads the DirFiles present in it. The context is checked between
// batches of readBatch names (FS_ABORTED `walk aborted`).
func (w *walker) read(f *os.File, fd int) ([]os.DirEntry, map[string][]byte, error) {
	var entries []os.DirEntry
	for {
		if err := w.ctx.Err(); err != nil {
			return nil, nil, fsapi.ErrAborted("walk", err)
		}
		batch, err := f.ReadDir(readBatch)
		entries = append(entries, batch...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
	}
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var files map[string][]byte
	for _, name := range w.opts.DirFiles {
		i, found := slices.BinarySearchFunc(entries, name, func(e os.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
		if !found || !entries[i].Type().IsRegular() {
			continue
		}
		if data, ok := readDirFile(fd, name, w.opts.MaxFileBytes); ok {
			if files == nil {
				files = make(map[string][]byte, len(w.opts.DirFiles))
			}
			files[name] = data
		}
	}
	return entries, files, nil
}

// readDirFile reads the regular file name in the directory dirfd, without
// following a symlink and without blocking, when it is at most max bytes.
func readDirFile(dirfd int, name string, max int64) ([]byte, bool) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	f := &regularFile{fd: fd, name: name}
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > max {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(data)) > max {
		return nil, false
	}
	return data, true
}

// children visits the sorted entries of the open directory dirfd, whose
// path below the root is rel ("" for the root).
func (w *walker) children(dirfd int, rel string, entries []os.DirEntry) error {
	for _, de := range entries {
		name := de.Name()
		if IsScratchName(name) {
			continue // a staging file or a marked copy (contract §3.7 [D9+])
		}
		path := name
		if rel != "" {
			path = rel + "/" + name
		}
		e := fsapi.WalkEntry{Path: path, Name: name, Target: w.target(path)}
		switch m := de.Type(); {
		case m.IsDir():
			e.Type = fsapi.TypeDirectory
		case m&fs.ModeSymlink != 0:
			e.Type = fsapi.TypeSymlink
		case m.IsRegular():
			e.Type = fsapi.TypeFile
		default:
			e.Type = fsapi.TypeOther
		}
		var id *fileID
		if e.Type == fsapi.TypeFile && w.opts.FileInfo {
			var st unix.Stat_t
			if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue // vanished since the listing
			}
			if st.Mode&unix.S_IFMT != unix.S_IFREG {
				e.Type = fsapi.TypeOther
			} else {
				e.Size = st.Size
				e.ModTime = time.Unix(st.Mtim.Unix())
				id = &fileID{dev: st.Dev, ino: st.Ino}
			}
		}
		if w.secret(e.Target.Key, id) {
			continue // a file the server keeps for itself: never searched
		}
		err := w.visit(e)
		switch {
		case errors.Is(err, fsapi.SkipDir) && e.Type == fsapi.TypeDirectory:
			continue
		case errors.Is(err, fsapi.SkipDir):
			return nil // as fs.WalkDir: the rest of this directory is skipped
		case err == nil && e.Type == fsapi.TypeDirectory:
			err = w.descend(dirfd, e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// descend opens and reads the directory e (a child of dirfd), visits it
// again as opened, then its children. A directory that vanished is skipped
// silently.
func (w *walker) descend(dirfd int, e fsapi.WalkEntry) error {
	if err := w.ctx.Err(); err != nil {
		return fsapi.ErrAborted("walk", err)
	}
	sub, subfd, err := openChildDir(dirfd, e.Name)
	var entries []os.DirEntry
	if err == nil {
		defer sub.Close()
		entries, e.Files, err = w.read(sub, subfd)
	}
	if err == nil && len(entries) > 0 {
		err = searchable(subfd, e.Name)
	}
	var fe *fsapi.Error
	if errors.As(err, &fe) && fe.Code == fsapi.CodeAborted {
		return err
	}
	if err != nil {
		if absent(err) {
			return nil
		}
		e.Err = searchRootError(e.Target.DisplayPath, err)
	}
	e.Opened = true
	err = w.visit(e)
	if e.Err != nil || errors.Is(err, fsapi.SkipDir) {
		return nil
	}
	if err != nil {
		return err
	}
	return w.children(subfd, e.Path, entries)
}

// searchable reports EACCES (as a *fs.PathError for name) when the open
// directory dirfd can be listed but not searched (read without execute
// permission): its names are known but none of its entries can be reached,
// so the walk reports it unreadable (search.md §6.4 rule 4) instead of
// dropping its files silently. Looking up "." needs search permission.
func searchable(dirfd int, name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, ".", &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return nil
}

// openChildDir opens the directory name of dirfd without following a
// symlink, and checks it is the directory an lstat of name saw (same device
// and inode).
func openChildDir(dirfd int, name string) (*os.File, int, error) {
	var listed unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &listed, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, -1, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	if listed.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil, -1, &fs.PathError{Op: "open", Path: name, Err: errDirSwapped}
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			err = errDirSwapped
		}
		return nil, -1, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var opened unix.Stat_t
	if err := unix.Fstat(fd, &opened); err != nil || opened.Dev != listed.Dev || opened.Ino != listed.Ino {
		unix.Close(fd)
		return nil, -1, &fs.PathError{Op: "open", Path: name, Err: errDirSwapped}
	}
	return os.NewFile(uintptr(fd), name), fd, nil
}

var _ fsapi.Walker = (*Provider)(nil)
