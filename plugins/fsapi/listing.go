package fsapi

import "context"

// ListOptions says what a cheap listing must still probe (contract §3.6
// [D21]).
type ListOptions struct {
	// Metadata asks for every child's Version and, for files, Size, as
	// ListDir gives them: one stat per child. Without it a child's Version
	// and Size may be left unset.
	Metadata bool
}

// EntryLister is the optional cheap listing capability of contract §3.6
// [D21]. ListEntries returns the direct children of the directory t like
// ListDir (same Type rules, same targets, same errors for the directory
// itself, a child never fails the listing), with two differences: the order
// is unspecified (callers sort once, by their own rule), and without
// opts.Metadata each child's name and type come from the directory read
// itself, so only symlinks (to follow them) and entries whose type the read
// did not give are probed. A 10,000-entry directory then costs one
// directory read instead of 10,000 stats. ListDir itself is unchanged.
type EntryLister interface {
	ListEntries(ctx context.Context, t Target, opts ListOptions) ([]DirEntry, error)
}

// ListEntries returns t's children through fsys's EntryLister when it has
// one, else through ListDir (sorted, with metadata).
func ListEntries(ctx context.Context, fsys FileSystem, t Target, opts ListOptions) ([]DirEntry, error) {
	if l, ok := fsys.(EntryLister); ok {
		return l.ListEntries(ctx, t, opts)
	}
	return fsys.ListDir(ctx, t)
}
