package fsapi

import (
	"io/fs"
	"time"
)

// EntryType is the kind of a filesystem entry as the fs service reports it.
// Its String form is the wire word. Contract §2.1.
type EntryType string

const (
	// TypeFile is a regular file.
	TypeFile EntryType = "file"
	// TypeDirectory is a directory.
	TypeDirectory EntryType = "directory"
	// TypeSymlink is a symbolic link; only Lstat reports it.
	TypeSymlink EntryType = "symlink"
	// TypeOther is a socket, FIFO or device, and in listings also a broken
	// link or a child that could not be probed.
	TypeOther EntryType = "other"
)

// String returns the wire word: "file", "directory", "symlink" or "other".
func (t EntryType) String() string { return string(t) }

// Info is what Stat returns for an existing target (contract §2.1). Type is
// TypeFile, TypeDirectory or TypeOther. Size is in bytes and meaningful only
// when HasSize is true; fslocal always sets it.
type Info struct {
	Version Version
	Type    EntryType
	Size    int64
	HasSize bool
}

// PathInfo is what Lstat and ResolveEntry return (contract §2.1): like
// [Info], but Type may be TypeSymlink because the final component is not
// followed. Mode is the entry's permission bits (fs.ModePerm and the
// setuid, setgid and sticky bits) and ModTime its modification time, both
// of the entry itself; a provider that has neither leaves them zero.
type PathInfo struct {
	Version Version
	Type    EntryType
	Size    int64
	HasSize bool
	Mode    fs.FileMode
	ModTime time.Time
}

// DirEntry is one child in a ListDir result (contract §2.1, §3.6).
//
// Name is the raw name as stored on disk (it may be invalid UTF-8). Type is
// TypeFile, TypeDirectory or TypeOther (symlinks are followed). Target is the
// child's target. Version is empty when the child could not be probed (a
// broken link, a vanished child, or one outside the confinement root). Size is
// in bytes and set (HasSize true) only for files.
type DirEntry struct {
	Name    string
	Type    EntryType
	Target  Target
	Version Version
	Size    int64
	HasSize bool
}
