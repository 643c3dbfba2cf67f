package fsapi

import (
	"context"
	"io/fs"
	"time"
)

// Walker is the optional capability of enumerating a directory tree without
// following symlinks (search.md §2.1). The search tools need it; a provider
// without it is still a valid fs service.
//
// Walk calls fn for root first (Path ".", Opened true, with its Files), then
// for every entry below it, depth first, pre-order, the children of each
// directory in byte order of their names (path order, search.md §4.2).
// Directories below the root are visited twice: before they are read
// (Opened false; returning [SkipDir] leaves them unopened, with no second
// visit) and after (Opened true, with Files or Err). Files, symlinks and
// other entries are visited once. Symlinks are reported, never followed.
//
// fn returning [SkipAll] ends the walk and Walk returns nil; any other
// non-nil error ends it and is returned unchanged. The root's failures are
// returned by Walk itself: FS_NOT_FOUND, FS_NOT_DIRECTORY,
// FS_PERMISSION_DENIED (`cannot search "<p>": …`), FS_SANDBOX_DENIED, or
// FS_IO_ERROR; a done ctx ends the walk with FS_ABORTED `walk aborted`
// ([ErrSearch], [ErrAborted]). fn is called from one goroutine at a time.
type Walker interface {
	Walk(ctx context.Context, root Target, opts WalkOptions, fn func(WalkEntry) error) error
}

// WalkOptions tunes a Walk (search.md §2.1).
type WalkOptions struct {
	// DirFiles are the names read from every directory opened, such as
	// ".ignore" and ".gitignore"; they appear in WalkEntry.Files.
	DirFiles []string
	// MaxFileBytes is the largest DirFiles file that is read, in bytes.
	MaxFileBytes int64
	// FileInfo asks for Size and ModTime of regular files. Without it they
	// are zero and the walker makes no stat for files (grep needs neither
	// before it opens a file).
	FileInfo bool
}

// WalkEntry is one visit of a Walk (search.md §2.1).
type WalkEntry struct {
	// Path is "." for the root, else the path below the root with '/'
	// separators, as raw bytes (it may be invalid UTF-8).
	Path string
	// Name is the last segment of Path ("." for the root).
	Name string
	// Type is file, directory, symlink or other; a symlink is never
	// followed.
	Type EntryType
	// Size (bytes) and ModTime are set for regular files when
	// WalkOptions.FileInfo asks for them, from lstat.
	Size    int64
	ModTime time.Time
	// Target is the entry's target: DisplayPath is the root's display path
	// joined with Path; Key is minted by the provider.
	Target Target
	// Opened is true on the visit of a directory after it was read.
	Opened bool
	// Files holds, on opened visits, those WalkOptions.DirFiles present in
	// the directory as regular files of at most MaxFileBytes bytes.
	Files map[string][]byte
	// Err is set on an opened visit when the directory could not be read:
	// FS_PERMISSION_DENIED or FS_IO_ERROR `cannot search "<dir>": …`. Its
	// children are not visited.
	Err error
}

// SkipDir and SkipAll are fs.SkipDir and fs.SkipAll: returned by a walk
// function, they skip a directory or end the walk (search.md §2.1).
var (
	SkipDir = fs.SkipDir
	SkipAll = fs.SkipAll
)
