package fslocal

import (
	"context"
	"errors"
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/dsh-go/dsh/internal/collation"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// ListDir returns the direct children of the directory t, sorted by name in
// the list tool's collation (contract §6.6.3; the tool re-ranks by type),
// with their metadata and targets (contract §3.6). It never opens a file.
// The provider's own scratch files (staging files, marked copies of
// in-place rewrites; [IsScratchName]) are skipped ([D9+]).
//
// Each child's DisplayPath is t's display path joined with the name; its Key
// is t's key joined with the name and then resolved (so a symlinked
// directory re-pointed after t was resolved still lists the original real
// directory). Symlinks are followed: to a directory it is TypeDirectory, to a
// file TypeFile. A socket, FIFO or device is TypeOther with a version. A
// child that cannot be resolved or probed (a broken link, a loop, a link
// through a file, a permission error, a race with deletion) and, under
// confinement, a child whose real location is outside the root (its link is
// not followed) are TypeOther with no version and no size, keyed by t's key
// joined with the raw name ([D12], §3.10). Size (bytes) is set only for files.
//
// Errors, only for the directory itself: FS_ABORTED `list aborted` (on entry,
// after reading the entries, before each child); FS_NOT_FOUND `cannot list
// "<p>": not found`; FS_NOT_DIRECTORY `cannot list "<p>": not a directory`;
// FS_PERMISSION_DENIED `cannot list "<p>": permission denied`;
// FS_SANDBOX_DENIED when the directory was redirected outside the root; and
// FS_IO_ERROR `cannot list "<p>": <cause text>` for anything else (a symlink
// loop).
func (p *Provider) ListDir(ctx context.Context, t fsapi.Target) ([]fsapi.DirEntry, error) {
	fd, dirents, err := p.openListing(ctx, t)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	collation.SortFunc(dirents, func(d typedName) string { return d.name }, nil)
	entries := make([]fsapi.DirEntry, 0, len(dirents))
	for _, de := range dirents {
		if err := ctx.Err(); err != nil {
			return nil, fsapi.ErrAborted("list", err)
		}
		if IsScratchName(de.name) {
			continue // a staging file or a marked copy ([D9+])
		}
		entries = append(entries, p.child(fd, t, de.name))
	}
	return entries, nil
}

// openListing runs the checks on the listed directory t (contract §3.6
// steps 1-2: the context, the directory itself, its type), opens it with
// the provider's one open (openFD) and reads its names with the types the
// directory read reports, in directory order (readTypedFD). It returns the
// directory's descriptor, for its children's lookups (the caller closes
// it), and the names. Errors, for the directory only: FS_ABORTED (on entry
// and after the read), FS_NOT_DIRECTORY when t exists and is not a
// directory, else listError's.
func (p *Provider) openListing(ctx context.Context, t fsapi.Target) (int, []typedName, error) {
	if err := ctx.Err(); err != nil {
		return -1, nil, fsapi.ErrAborted("list", err)
	}
	fd, err := p.tree.openFD(t.Key, true)
	if err != nil {
		// ENOTDIR is also a parent that is not a directory (absent): only
		// the target itself existing as a non-directory is "not a
		// directory".
		if errors.Is(err, syscall.ENOTDIR) {
			if fi, serr := p.statKey(t.Key); serr == nil && !fi.IsDir() {
				return -1, nil, fsapi.ErrNotDirectory(t.DisplayPath)
			}
		}
		return -1, nil, listError(t.DisplayPath, err)
	}
	dirents, err := readTypedFD(fd)
	if err != nil {
		unix.Close(fd)
		return -1, nil, listError(t.DisplayPath, err)
	}
	if err := ctx.Err(); err != nil {
		unix.Close(fd)
		return -1, nil, fsapi.ErrAborted("list", err)
	}
	return fd, dirents, nil
}

// listError translates a failure on the listed directory (contract §3.6
// step 2).
func listError(display string, err error) error {
	switch {
	case absent(err):
		return fsapi.ErrNotFound("list", display, err)
	case escapes(err):
		return fsapi.ErrOutsideWorkspace(display, err)
	case denied(err):
		return fsapi.ErrPermission("list", display, err)
	}
	return fsapi.ErrListIO(display, err)
}

// child examines one child, name, of the listed directory t, open as dirfd,
// without ever failing (contract §3.6 step 5, [D12]). A child that is not
// a symlink is examined by one fstatat through dirfd and is its own real
// location; a symlink is examined by linkChild.
func (p *Provider) child(dirfd int, t fsapi.Target, name string) fsapi.DirEntry {
	e := fsapi.DirEntry{
		Name:   name,
		Type:   fsapi.TypeOther,
		Target: fsapi.Target{Key: joinName(t.Key, name), DisplayPath: joinName(t.DisplayPath, name)},
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return e
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return p.linkChild(t, e)
	case unix.S_IFREG:
		e.Type, e.Size, e.HasSize = fsapi.TypeFile, st.Size, true
	case unix.S_IFDIR:
		e.Type = fsapi.TypeDirectory
	}
	e.Version = versionOfStat(&st)
	return e
}

// linkChild examines e, a child of t that the listing saw as a symlink: it
// is resolved from t's key (so confinement and [D12] apply) and its real
// location stat'ed through the tree. A child that cannot be resolved or
// stat'ed is e as given (TypeOther, keyed by t's key and the raw name).
func (p *Provider) linkChild(t fsapi.Target, e fsapi.DirEntry) fsapi.DirEntry {
	loc, err := p.tree.walk(t.Key, true, []string{e.Name})
	if err != nil || !loc.exists {
		return e
	}
	fi, err := p.tree.stat(loc.real)
	if err != nil {
		return e
	}
	e.Target.Key = loc.real
	return withInfo(e, fi)
}

// withInfo sets e's type, version and (for a file) size from fi.
func withInfo(e fsapi.DirEntry, fi fs.FileInfo) fsapi.DirEntry {
	e.Type = typeOf(fi)
	e.Version = versionOf(fi)
	if e.Type == fsapi.TypeFile {
		e.Size, e.HasSize = fi.Size(), true
	}
	return e
}
