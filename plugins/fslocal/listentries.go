package fslocal

import (
	"context"
	"io/fs"
	"strings"
	"syscall"

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
// and an entry of unknown type is lstat'ed through the listed directory.
// The directory is opened and read as ListDir opens and reads it
// (openListing), with ListDir's errors. Like ListDir it skips the
// provider's scratch files ([IsScratchName], [D9+]).
func (p *Provider) ListEntries(ctx context.Context, t fsapi.Target, opts fsapi.ListOptions) ([]fsapi.DirEntry, error) {
	if opts.Metadata {
		return p.ListDir(ctx, t)
	}
	fd, dirents, err := p.openListing(ctx, t)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return p.typedEntries(ctx, t, fd, dirents)
}

// typedEntries makes the entries of the directory t, open as dirfd, from
// its typed names: a child the read did not type is lstat'ed through dirfd
// (lstatTypeAt); a symlink is examined as ListDir examines it (linkChild).
func (p *Provider) typedEntries(ctx context.Context, t fsapi.Target, dirfd int, dirents []typedName) ([]fsapi.DirEntry, error) {
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
			typ = lstatTypeAt(dirfd, name)
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

// direntMode maps a d_type to fs.FileMode type bits.
func direntMode(t byte) fs.FileMode {
	switch t {
	case syscall.DT_REG:
		return 0
	case syscall.DT_DIR:
		return fs.ModeDir
	case syscall.DT_LNK:
		return fs.ModeSymlink
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe
	case syscall.DT_SOCK:
		return fs.ModeSocket
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.DT_BLK:
		return fs.ModeDevice
	}
	return typeUnknown
}

// lstatTypeAt returns the type bits of the child name of the directory
// descriptor fd, not following a symlink (one fstatat); a child that
// vanished or cannot be examined is fs.ModeIrregular (other). A stat
// mode's S_IFMT bits shifted right by 12 are the d_type of the same type.
func lstatTypeAt(fd int, name string) fs.FileMode {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fs.ModeIrregular
	}
	if t := direntMode(byte((st.Mode & unix.S_IFMT) >> 12)); t != typeUnknown {
		return t
	}
	return fs.ModeIrregular
}
