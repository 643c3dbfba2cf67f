package fslocal

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Stat reports the type, size (bytes, set for every type) and version of t,
// following symlinks (contract §3.4). It returns nil and no error when t is
// absent (ENOENT or ENOTDIR) and never reads content.
//
// Errors: FS_ABORTED `stat aborted` when ctx is done on entry or after the
// probe; FS_PERMISSION_DENIED `cannot stat "<p>": permission denied` ([D7]);
// under confinement FS_SANDBOX_DENIED `cannot resolve "<p>": outside the
// workspace` when the path was redirected outside the root after Resolve.
// Anything else passes through uncoded.
func (p *Provider) Stat(ctx context.Context, t fsapi.Target) (*fsapi.Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, fsapi.ErrAborted("stat", err)
	}
	fi, err := p.statKey(t.Key)
	if cerr := ctx.Err(); cerr != nil {
		return nil, fsapi.ErrAborted("stat", cerr)
	}
	if err != nil {
		if absent(err) {
			return nil, nil
		}
		return nil, coded("stat", t.DisplayPath, err)
	}
	return &fsapi.Info{Version: versionOf(fi), Type: typeOf(fi), Size: fi.Size(), HasSize: true}, nil
}

// Lstat examines path without following its final symlink (contract §3.4):
// the display path is computed as in Resolve, no realpath is taken, and a
// link reports TypeSymlink. It returns nil and no error when the path is
// absent (ENOENT or ENOTDIR). Version and Size describe the entry itself (for
// a link: the link, not its target); Size is always set.
//
// Errors: FS_ABORTED `lstat aborted` (on entry or after the probe); FS_NOT_FOUND
// `file_path must be a non-empty string` for a blank path; FS_INVALID_PATH
// `cannot resolve "<p>": the path contains a NUL character` ([D17]);
// FS_PERMISSION_DENIED `cannot stat "<p>": permission denied` ([D7]); under
// confinement FS_SANDBOX_DENIED `cannot resolve "<p>": outside the
// workspace` when the real parent joined with the final name is outside the
// root ([D8]). Anything else passes through uncoded.
func (p *Provider) Lstat(ctx context.Context, path string, opts fsapi.ResolveOptions) (*fsapi.PathInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, fsapi.ErrAborted("lstat", err)
	}
	if fsapi.IsBlank(path) {
		return nil, fsapi.ErrBlankPath("lstat")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return nil, fsapi.ErrNULInPath(p.uncleanDisplay(path, opts.Cwd))
	}
	display := p.displayPath(path, opts)
	at := display
	var err error
	if p.tree.root != nil && display != "/" {
		at, err = p.lstatLocation(display)
	}
	var fi fs.FileInfo
	if err == nil {
		fi, err = p.tree.lstat(at)
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, fsapi.ErrAborted("lstat", cerr)
	}
	switch {
	case err == nil:
	case errors.Is(err, errOutside):
		return nil, fsapi.ErrOutsideWorkspace(display, nil)
	case absent(err):
		return nil, nil
	default:
		return nil, coded("stat", display, err)
	}
	return pathInfo(fi), nil
}

// lstatLocation returns the real parent of display joined with its final
// name, or errOutside when that lies outside the root (contract §3.10).
func (p *Provider) lstatLocation(display string) (string, error) {
	if display == p.tree.base {
		return display, nil // the root itself, whose parent lies outside
	}
	loc, err := p.locate(filepath.Dir(display))
	if err != nil {
		return "", err
	}
	at := joinName(loc.real, filepath.Base(display))
	if !p.tree.inside(at) {
		return "", errOutside
	}
	return at, nil
}

// statKey stats key, following symlinks, through the tree.
//
// os.Root refuses every absolute symlink, even one that stays inside the
// root. A key is symlink-free except for a dangling link as its final
// component (contract §3.2: its key is the link itself), so when the root
// refuses, the walk decides: outside stays refused, a link that still
// dangles is absent, and one that now leads inside is stat'ed at its real,
// symlink-free location, again through the root.
func (p *Provider) statKey(key string) (fs.FileInfo, error) {
	fi, err := p.tree.stat(key)
	if err == nil || p.tree.root == nil || !escapes(err) {
		return fi, err
	}
	loc, werr := p.locate(key)
	switch {
	case errors.Is(werr, errOutside):
		return nil, err
	case werr != nil:
		return nil, werr
	case !loc.exists:
		return nil, &fs.PathError{Op: "stat", Path: key, Err: syscall.ENOENT}
	}
	return p.tree.stat(loc.real)
}

// typeOf maps a followed stat to the seam's entry type: file, directory or
// other (contract §2.1).
func typeOf(fi fs.FileInfo) fsapi.EntryType {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return fsapi.TypeFile
	case m.IsDir():
		return fsapi.TypeDirectory
	}
	return fsapi.TypeOther
}

// nlink returns fi's hard-link count, or 1 when the platform does not say.
func nlink(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// owner returns fi's uid and gid, and false when the platform does not say.
func owner(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

var _ fsapi.Lstater = (*Provider)(nil)
