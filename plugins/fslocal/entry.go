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

// ResolveEntry names the entry at path itself, without following its final
// symlink (fsapi.EntryResolver): the display path is Resolve's; the key is
// the key of the parent (its realpath, or that of its nearest existing
// ancestor plus the missing rest) joined with the final name, so a link,
// dangling or not, has its own key and a file or directory the key Resolve
// gives it. A missing final name whose directory holds exactly one entry
// with the same NFC form is that entry ([D16]). Info is the entry's lstat,
// nil when it is absent. The errors are Resolve's; the root itself, or "/",
// is named as Resolve names it.
func (p *Provider) ResolveEntry(ctx context.Context, path string, opts fsapi.ResolveOptions) (fsapi.Target, *fsapi.PathInfo, error) {
	if err := ctx.Err(); err != nil {
		return fsapi.Target{}, nil, fsapi.ErrAborted("resolve", err)
	}
	if fsapi.IsBlank(path) {
		return fsapi.Target{}, nil, fsapi.ErrBlankPath("resolve")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return fsapi.Target{}, nil, fsapi.ErrNULInPath(p.uncleanDisplay(path, opts.Cwd))
	}
	display := p.displayPath(path, opts)
	key, err := p.entryKey(display)
	if cerr := ctx.Err(); cerr != nil {
		return fsapi.Target{}, nil, fsapi.ErrAborted("resolve", cerr)
	}
	if err != nil {
		return fsapi.Target{}, nil, resolveError(display, err)
	}
	t := fsapi.Target{Key: key, DisplayPath: display}
	fi, err := p.tree.lstat(key)
	switch {
	case err == nil:
		return t, pathInfo(fi), nil
	case absent(err):
		return t, nil, nil
	}
	return fsapi.Target{}, nil, coded("stat", display, err)
}

// entryKey is the key of the entry display names (see ResolveEntry).
func (p *Provider) entryKey(display string) (string, error) {
	if display == "/" || display == p.tree.base {
		loc, err := p.locate(display)
		return loc.key, err
	}
	loc, err := p.locate(filepath.Dir(display))
	if err != nil {
		return "", err
	}
	name := filepath.Base(display)
	if len(name) > nameMax {
		return "", &fs.PathError{Op: "resolve", Path: name, Err: syscall.ENAMETOOLONG}
	}
	key := joinName(loc.key, name)
	if loc.exists {
		if _, err := p.tree.lstat(key); errors.Is(err, fs.ErrNotExist) {
			if twin, ok := nfcTwin(loc.key, name); ok {
				key = joinName(loc.key, twin)
			}
		}
	}
	if !p.tree.inside(key) {
		return "", errOutside
	}
	return key, nil
}

// entryType is the seam's type of an lstat: a symlink is TypeSymlink, the
// rest as typeOf.
func entryType(fi fs.FileInfo) fsapi.EntryType {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fsapi.TypeSymlink
	}
	return typeOf(fi)
}

// pathInfo is the PathInfo of an lstat.
func pathInfo(fi fs.FileInfo) *fsapi.PathInfo {
	return &fsapi.PathInfo{Version: versionOf(fi), Type: entryType(fi), Size: fi.Size(), HasSize: true,
		Mode: fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), ModTime: fi.ModTime()}
}

var _ fsapi.EntryResolver = (*Provider)(nil)
