package toolfs

import (
	"github.com/dsh-go/dsh/internal/collation"
	"github.com/dsh-go/dsh/internal/jsnum"
	"github.com/dsh-go/dsh/internal/quote"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// listEntry is one entry of a list page (contract §6.2): the name with each
// invalid UTF-8 byte replaced by U+FFFD [D11] and the type, "file",
// "directory" or "other". raw keeps the name as stored, so the rendered line
// can still quote a name that was not valid UTF-8; it is not marshalled.
type listEntry struct {
	Name string          `json:"name"`
	Type fsapi.EntryType `json:"type"`
	raw  string
}

// renderedName returns the name as the entry line shows it, before its type
// suffix (contract §6.6.4, §6.6.5).
func (e listEntry) renderedName() string {
	if e.raw != "" {
		return quote.Name(e.raw)
	}
	return quote.Name(e.Name)
}

// entryCounts counts the entries of a complete listing by type (contract
// §6.6.2 step 6).
type entryCounts struct {
	Directories int `json:"directories"`
	Files       int `json:"files"`
	Other       int `json:"other"`
}

// listPage is the structured value of a list call (contract §6.2, §6.6.2
// step 6): the directory's display path, the 1-based offset of the page's
// first entry, the page, the number of entries in the whole directory and
// their counts by type. Entries is never nil, so it marshals as `[]`.
type listPage struct {
	Path         string      `json:"path"`
	Offset       int         `json:"offset"`
	Entries      []listEntry `json:"entries"`
	TotalEntries int         `json:"totalEntries"`
	Counts       entryCounts `json:"counts"`
}

// listType maps a child's type to the three list types: a directory and a
// file keep theirs, anything else (including a symlink a provider failed to
// follow) is "other" (contract §2.1, §6.2).
func listType(t fsapi.EntryType) fsapi.EntryType {
	switch t {
	case fsapi.TypeDirectory, fsapi.TypeFile:
		return t
	}
	return fsapi.TypeOther
}

// entryRank is the rank of a list type: directory 0, file 1, other 2
// (contract §6.6.2 step 3).
func entryRank(t fsapi.EntryType) int {
	switch t {
	case fsapi.TypeDirectory:
		return 0
	case fsapi.TypeFile:
		return 1
	}
	return 2
}

// orderEntries projects children to list entries and orders them by rank,
// then by collation key, then by raw bytes (contract §6.6.2 step 3, §6.6.3).
// It does not modify children.
func orderEntries(children []fsapi.DirEntry) []listEntry {
	entries := make([]listEntry, len(children))
	for i, c := range children {
		entries[i] = listEntry{Name: fsapi.Display(c.Name), Type: listType(c.Type), raw: c.Name}
	}
	collation.SortFunc(entries,
		func(e listEntry) string { return e.raw },
		func(e listEntry) int { return entryRank(e.Type) })
	return entries
}

// newListPage orders children and returns the page starting at offset (an
// integer ≥ 1, the validated argument) with at most maxEntries entries
// (listMaxEntries, ≥ 1), with the total and the counts of the whole listing.
// An offset past the last entry fails with FS_NOT_FOUND
// `offset <offset> is out of range for "<displayPath>" (<n> entries)`, never
// singular, except that offset 1 of an empty directory is an empty page.
// Contract §6.6.2.
func newListPage(displayPath string, children []fsapi.DirEntry, offset float64, maxEntries int) (listPage, error) {
	n := len(children)
	if offset > float64(n) && !(n == 0 && offset == 1) {
		return listPage{}, fsapi.ErrOffsetOutOfRange(jsnum.Format(offset), displayPath, n, "entries")
	}
	all := orderEntries(children)
	var counts entryCounts
	for _, e := range all {
		switch e.Type {
		case fsapi.TypeDirectory:
			counts.Directories++
		case fsapi.TypeFile:
			counts.Files++
		default:
			counts.Other++
		}
	}
	first := int(offset) // 1 ≤ offset ≤ max(n, 1) once validated
	start := max(0, min(first-1, n))
	end := n
	if maxEntries < n-start {
		end = start + max(maxEntries, 0)
	}
	page := all[start:end:end] // all is this call's own: the page shares it
	return listPage{Path: displayPath, Offset: first, Entries: page, TotalEntries: n, Counts: counts}, nil
}
