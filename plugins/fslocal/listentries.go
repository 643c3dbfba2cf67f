package fslocal

import (
	"context"
	"io/fs"
	"strings"

	"golang.org/x/sys/unix"

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
//
// The directory is opened by one openat2 beneath the root's descriptor
// (RESOLVE_BENEATH, as Open does: nothing swapped in after Resolve can lead
// outside), O_DIRECTORY, and read with getdents64 on that descriptor: no
// second open, no poller registration (issue 10); a directory unchanged
// since a recent read is not read again ([dirSnapshots]: one fstat proves
// it unchanged). When that open
// fails, or cannot be made here (no openat2, a path past PATH_MAX), the
// os.Root path of ListDir runs instead, so every failure is ListDir's.
func (p *Provider) ListEntries(ctx context.Context, t fsapi.Target, opts fsapi.ListOptions) ([]fsapi.DirEntry, error) {
	if opts.Metadata {
		return p.ListDir(ctx, t)
	}
	if err := ctx.Err(); err != nil {
		return nil, fsapi.ErrAborted("list", err)
	}
	fd, err := p.tree.openRawDir(t.Key)
	if err != nil {
		return p.listEntriesRooted(ctx, t)
	}
	defer unix.Close(fd)
	dirents, err := p.dirs.readDir(fd)
	if err != nil {
		return nil, listError(t.DisplayPath, err)
	}
	return p.typedEntries(ctx, t, dirents, func(name string) fs.FileMode { return lstatTypeAt(fd, name) })
}

// listEntriesRooted is ListEntries through an os.Root on the directory,
// with ListDir's checks and errors (openListed).
func (p *Provider) listEntriesRooted(ctx context.Context, t fsapi.Target) ([]fsapi.DirEntry, error) {
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
	return p.typedEntries(ctx, t, dirents, func(name string) fs.FileMode {
		fi, err := dir.Lstat(name)
		if err != nil {
			return fs.ModeIrregular // vanished or unreadable: other
		}
		return fi.Mode().Type()
	})
}

// typedEntries makes the entries of the directory t from its typed names:
// lstatType gives the type bits of a child the read did not type (one
// lstat through the listed directory, as ReadDir does); a symlink is
// examined as ListDir examines it (linkChild).
func (p *Provider) typedEntries(ctx context.Context, t fsapi.Target, dirents []typedName, lstatType func(name string) fs.FileMode) ([]fsapi.DirEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, fsapi.ErrAborted("list", err)
	}
	entries := make([]fsapi.DirEntry, 0, len(dirents))
	keys := childPathsOf(t.Key, dirents)
	displays := keys // one string for both when they agree (an absolute path's usual case)
	if t.DisplayPath != t.Key {
		displays = childPathsOf(t.DisplayPath, dirents)
	}
	for i, de := range dirents {
		name, typ := de.name, de.typ
		if IsScratchName(name) {
			continue // a staging file or a marked copy ([D9+])
		}
		if typ == typeUnknown {
			typ = lstatType(name)
		}
		key, display := keys.at(i), displays.at(i)
		e := fsapi.DirEntry{Name: name, Type: fsapi.TypeOther, Target: fsapi.Target{Key: key, DisplayPath: display}}
		switch {
		case typ&fs.ModeSymlink != 0:
			if err := ctx.Err(); err != nil {
				return nil, fsapi.ErrAborted("list", err)
			}
			e = p.linkChild(t, e)
		case typ&fs.ModeDir != 0:
			e.Type = fsapi.TypeDirectory
		case typ&fs.ModeType == 0:
			e.Type = fsapi.TypeFile
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// childPaths holds dir joined with each name of a listing in one string
// (joinName's result for each): one allocation per listing instead of one
// per child.
type childPaths struct {
	all  string
	ends []int32 // ends[i] is where path i ends in all; it starts where i-1 ends
}

func childPathsOf(dir string, dirents []typedName) childPaths {
	prefix := dir + "/"
	if dir == "/" {
		prefix = "/"
	}
	n := 0
	for _, de := range dirents {
		n += len(prefix) + len(de.name)
	}
	var b strings.Builder // its String does not copy
	b.Grow(n)
	ends := make([]int32, len(dirents))
	for i, de := range dirents {
		b.WriteString(prefix)
		b.WriteString(de.name)
		ends[i] = int32(b.Len())
	}
	return childPaths{all: b.String(), ends: ends}
}

// at returns the path of name i.
func (c childPaths) at(i int) string {
	start := int32(0)
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.all[start:c.ends[i]]
}
