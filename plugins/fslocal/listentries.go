package fslocal

import (
	"context"
	"io/fs"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// typedName is a directory entry as the directory read gives it: its name
// and its type bits (fs.FileMode type bits, or typeUnknown).
type typedName struct {
	name string
	typ  fs.FileMode
}

// typeUnknown marks an entry whose type the directory read did not report.
const typeUnknown = ^fs.FileMode(0)

// ListEntries is the cheap listing of contract §3.6 [D21] (the
// [fsapi.EntryLister] capability): the children of the directory t as
// ListDir gives them, in directory order (unsorted). With opts.Metadata it
// is ListDir. Without it, each child's type is the one the directory read
// (getdents) reported: a directory is TypeDirectory, a regular file
// TypeFile, a socket, FIFO or device TypeOther, all with no version and no
// size; only a symlink is examined (resolved from t's key and stat'ed
// through the tree, exactly as ListDir does, so confinement and [D12] apply)
// and an entry of unknown type is lstat'ed by the read itself. Errors are
// ListDir's, for the directory only. Like ListDir it skips the provider's
// scratch files ([IsScratchName], [D9+]).
func (p *Provider) ListEntries(ctx context.Context, t fsapi.Target, opts fsapi.ListOptions) ([]fsapi.DirEntry, error) {
	if opts.Metadata {
		return p.ListDir(ctx, t)
	}
	dir, err := p.openListed(ctx, t)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, err := dir.Open(".")
	if err != nil {
		return nil, listError(t.DisplayPath, err)
	}
	dirents, err := readTyped(f)
	f.Close()
	if err != nil {
		return nil, listError(t.DisplayPath, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fsapi.ErrAborted("list", err)
	}
	entries := make([]fsapi.DirEntry, 0, len(dirents))
	for _, de := range dirents {
		name, typ := de.name, de.typ
		if IsScratchName(name) {
			continue // a staging file or a marked copy ([D9+])
		}
		if typ == typeUnknown {
			// The directory read did not say: one lstat, as ReadDir does.
			if fi, err := dir.Lstat(name); err == nil {
				typ = fi.Mode().Type()
			} else {
				typ = fs.ModeIrregular // vanished or unreadable: other
			}
		}
		if typ&fs.ModeSymlink != 0 {
			if err := ctx.Err(); err != nil {
				return nil, fsapi.ErrAborted("list", err)
			}
			entries = append(entries, p.child(dir, t, name))
			continue
		}
		key := joinName(t.Key, name)
		display := key // one string for both when they agree (an absolute path's usual case)
		if t.DisplayPath != t.Key {
			display = joinName(t.DisplayPath, name)
		}
		e := fsapi.DirEntry{Name: name, Type: fsapi.TypeOther, Target: fsapi.Target{Key: key, DisplayPath: display}}
		switch {
		case typ&fs.ModeDir != 0:
			e.Type = fsapi.TypeDirectory
		case typ&fs.ModeType == 0:
			e.Type = fsapi.TypeFile
		}
		entries = append(entries, e)
	}
	return entries, nil
}
