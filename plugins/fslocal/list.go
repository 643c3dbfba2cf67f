package fslocal

import (
	"context"
	"io/fs"
	"os"

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
	dir, err := p.openListed(ctx, t)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	names, err := readNames(dir)
	if err != nil {
		return nil, listError(t.DisplayPath, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fsapi.ErrAborted("list", err)
	}
	collation.Sort(names)
	entries := make([]fsapi.DirEntry, 0, len(names))
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, fsapi.ErrAborted("list", err)
		}
		if IsScratchName(name) {
			continue // a staging file or a marked copy ([D9+])
		}
		entries = append(entries, p.child(dir, t, name))
	}
	return entries, nil
}

// openListed runs the checks on the listed directory itself (contract §3.6
// steps 1-2: the context, the probe following symlinks, the directory type)
// and opens it through the tree, with ListDir's errors.
func (p *Provider) openListed(ctx context.Context, t fsapi.Target) (*os.Root, error) {
	if err := ctx.Err(); err != nil {
		return nil, fsapi.ErrAborted("list", err)
	}
	fi, err := p.statKey(t.Key)
	if err != nil {
		return nil, listError(t.DisplayPath, err)
	}
	if !fi.IsDir() {
		return nil, fsapi.ErrNotDirectory(t.DisplayPath)
	}
	dir, err := p.tree.openDir(t.Key)
	if err != nil {
		return nil, listError(t.DisplayPath, err)
	}
	return dir, nil
}

// readNames returns the names in dir, in directory order.
func readNames(dir *os.Root) ([]string, error) {
	f, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
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

// child examines one child of the listed directory dir (t) without ever
// failing (contract §3.6 step 5, [D12]). A child that is not a symlink is
// examined by one fstatat through dir and is its own real location; a
// symlink is examined by linkChild.
func (p *Provider) child(dir *os.Root, t fsapi.Target, name string) fsapi.DirEntry {
	e := fsapi.DirEntry{
		Name:   name,
		Type:   fsapi.TypeOther,
		Target: fsapi.Target{Key: joinName(t.Key, name), DisplayPath: joinName(t.DisplayPath, name)},
	}
	fi, err := dir.Lstat(name)
	if err != nil {
		return e
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return p.linkChild(t, e)
	}
	return withInfo(e, fi)
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
