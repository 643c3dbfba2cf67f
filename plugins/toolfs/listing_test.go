package toolfs

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// children builds directory entries of one type from names.
func children(t fsapi.EntryType, names ...string) []fsapi.DirEntry {
	out := make([]fsapi.DirEntry, len(names))
	for i, n := range names {
		out[i] = fsapi.DirEntry{Name: n, Type: t}
	}
	return out
}

// names returns the entry names of a page.
func names(p listPage) []string {
	out := []string{}
	for _, e := range p.Entries {
		out = append(out, e.Name)
	}
	return out
}

func TestOrderEntriesByRankThenCollation(t *testing.T) {
	files := []string{"Zed", "README.txt", "package.json", "B", "alpha", "ab", "a.b", "a-b", "a_b", "ä", "A", "a", "9", "10", ".hidden", "_x"}
	wantFiles := []string{"_x", ".hidden", "10", "9", "a", "A", "ä", "a_b", "a-b", "a.b", "ab", "alpha", "B", "package.json", "README.txt", "Zed"}

	t.Run("files collate per CLDR root (E8)", func(t *testing.T) {
		p, err := newListPage("/w", children(fsapi.TypeFile, files...), 1, 200)
		require.NoError(t, err)
		assert.Equal(t, wantFiles, names(p))
	})
	t.Run("directories come first, collated too (E8)", func(t *testing.T) {
		in := append(children(fsapi.TypeFile, files...), children(fsapi.TypeDirectory, "src", "Tools", "docs", "build")...)
		p, err := newListPage("/w", in, 1, 200)
		require.NoError(t, err)
		assert.Equal(t, append([]string{"build", "docs", "src", "Tools"}, wantFiles...), names(p))
	})
	t.Run("other entries rank last and a symlink type counts as other", func(t *testing.T) {
		in := []fsapi.DirEntry{
			{Name: "z-other", Type: fsapi.TypeOther},
			{Name: "a-link", Type: fsapi.TypeSymlink},
			{Name: "m-file", Type: fsapi.TypeFile},
			{Name: "z-dir", Type: fsapi.TypeDirectory},
		}
		p, err := newListPage("/w", in, 1, 200)
		require.NoError(t, err)
		assert.Equal(t, []string{"z-dir", "m-file", "a-link", "z-other"}, names(p))
		assert.Equal(t, fsapi.TypeOther, p.Entries[2].Type)
		assert.Equal(t, entryCounts{Directories: 1, Files: 1, Other: 2}, p.Counts)
	})
	t.Run("the quoting matrix names collate as contract §6.6.3 lists them", func(t *testing.T) {
		in := []string{"tab\tx", "regular@", "fake\n</content>", "émoji😀", "del\x7f", "c1\u0085", `back\slash`, "a/b?", "a@b", `a"b`, "<tag>", `"q`}
		p, err := newListPage("/w", children(fsapi.TypeFile, in...), 1, 200)
		require.NoError(t, err)
		assert.Equal(t, []string{`"q`, "<tag>", `a"b`, "a@b", "a/b?", `back\slash`, "c1\u0085", "del\x7f", "émoji😀", "fake\n</content>", "regular@", "tab\tx"}, names(p))
	})
	t.Run("names that collate equal fall back to raw bytes", func(t *testing.T) {
		p, err := newListPage("/w", children(fsapi.TypeFile, "a\x00", "a\u0301", "á", "a"), 1, 200)
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "a\x00", "a\u0301", "á"}, names(p))
	})
}

func TestOrderEntriesDoesNotModifyItsInput(t *testing.T) {
	in := children(fsapi.TypeFile, "b", "a")
	_ = orderEntries(in)
	assert.Equal(t, "b", in[0].Name)
}

func TestNewListPagePages(t *testing.T) {
	dir := append(children(fsapi.TypeFile, "c.txt", "a.txt", "b.txt"), children(fsapi.TypeDirectory, "src")...)
	tests := []struct {
		name   string
		offset float64
		max    int
		want   []string
	}{
		{"the first page (E3)", 1, 2, []string{"src", "a.txt"}},
		{"a page from offset 2 (E3)", 2, 2, []string{"a.txt", "b.txt"}},
		{"the last page (E3)", 3, 2, []string{"b.txt", "c.txt"}},
		{"offset at the last entry", 4, 2, []string{"c.txt"}},
		{"a page larger than the listing", 1, 200, []string{"src", "a.txt", "b.txt", "c.txt"}},
		{"a huge page size does not overflow", 2, int(^uint(0) >> 1), []string{"a.txt", "b.txt", "c.txt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := newListPage("/w/p", dir, tc.offset, tc.max)
			require.NoError(t, err)
			assert.Equal(t, tc.want, names(p))
			assert.Equal(t, int(tc.offset), p.Offset)
			assert.Equal(t, 4, p.TotalEntries)
			assert.Equal(t, entryCounts{Directories: 1, Files: 3}, p.Counts, "counts cover the complete listing")
		})
	}
}

func TestNewListPageOutOfRange(t *testing.T) {
	tests := []struct {
		name   string
		dir    []fsapi.DirEntry
		offset float64
		want   string
	}{
		{"offset 2 of an empty directory (E2)", nil, 2, `offset 2 is out of range for "/w/p" (0 entries)`},
		{"offset 5 of four entries (E3)", children(fsapi.TypeFile, "a", "b", "c", "d"), 5, `offset 5 is out of range for "/w/p" (4 entries)`},
		{"one entry is never singular (E4)", children(fsapi.TypeFile, "only.txt"), 2, `offset 2 is out of range for "/w/p" (1 entries)`},
		{"a huge offset is spelled as JavaScript does", children(fsapi.TypeFile, "a"), 1e21, `offset 1e+21 is out of range for "/w/p" (1 entries)`},
		{"offset 3 of an empty directory", nil, 3, `offset 3 is out of range for "/w/p" (0 entries)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newListPage("/w/p", tc.dir, tc.offset, 200)
			assert.EqualError(t, err, tc.want)
			var fe *fsapi.Error
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, fsapi.CodeNotFound, fe.Code)
		})
	}
	t.Run("an invalid path byte becomes U+FFFD in the message", func(t *testing.T) {
		_, err := newListPage("/w/\xff", nil, 2, 200)
		assert.EqualError(t, err, "offset 2 is out of range for \"/w/\uFFFD\" (0 entries)")
	})
}

func TestListPageMarshalsAsTheOutputSchema(t *testing.T) {
	t.Run("an empty directory has entries []", func(t *testing.T) {
		p, err := newListPage("/w/empty", nil, 1, 200)
		require.NoError(t, err)
		b, err := json.Marshal(p)
		require.NoError(t, err)
		assert.JSONEq(t, `{"path":"/w/empty","offset":1,"entries":[],"totalEntries":0,"counts":{"directories":0,"files":0,"other":0}}`, string(b))
	})
	t.Run("an invalid name is U+FFFD-replaced and the raw name is not marshalled [D11]", func(t *testing.T) {
		p, err := newListPage("/w", []fsapi.DirEntry{{Name: "bad\xffx", Type: fsapi.TypeFile}}, 1, 200)
		require.NoError(t, err)
		b, err := json.Marshal(p)
		require.NoError(t, err)
		assert.Equal(t, `{"path":"/w","offset":1,"entries":[{"name":"bad`+"\uFFFD"+`x","type":"file"}],"totalEntries":1,"counts":{"directories":0,"files":1,"other":0}}`, string(b))
	})
}

func TestListPageOfManyEntries(t *testing.T) {
	var in []fsapi.DirEntry
	for i := range 450 {
		in = append(in, fsapi.DirEntry{Name: "f" + strconv.Itoa(1000+i), Type: fsapi.TypeFile})
	}
	p, err := newListPage("/w", in, 401, 200)
	require.NoError(t, err)
	require.Len(t, p.Entries, 50)
	assert.Equal(t, "f1400", p.Entries[0].Name)
	assert.Equal(t, "f1449", p.Entries[49].Name)
}
