package fslocal_test

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// allocated returns the bytes fn allocated on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// sparse makes rel a sparse file of size bytes, all zeros.
func (w *workspace) sparse(rel string, size int64) {
	w.t.Helper()
	f, err := os.Create(w.path(rel))
	require.NoError(w.t, err)
	require.NoError(w.t, f.Truncate(size))
	require.NoError(w.t, f.Close())
}

// A file above editMaxBytes is refused by its size, before anything is
// read: EditText and InsertText of a 10 GB sparse file allocate next to
// nothing, where they read all of it (10.5 GB RSS) before answering.
func TestAnEditAboveEditMaxBytesIsRefusedBySize(t *testing.T) {
	w := newWorkspace(t)
	w.sparse("disk.img", 10<<30)
	tg := w.target("disk.img")
	var err error
	n := allocated(func() {
		_, err = w.p.EditText(context.Background(), tg, fsapi.EditRequest{OldString: "a", NewString: "b"}, nil)
	})
	assert.EqualError(t, err, `cannot edit "`+tg.DisplayPath+`": file is larger than 1073741824 bytes`)
	assert.True(t, fsapi.HasCode(err, fsapi.CodeFileTooLarge))
	assert.Less(t, n, uint64(1<<20), "nothing of the file was read")
	_, err = w.p.InsertText(context.Background(), tg, fsapi.InsertRequest{Line: 0, Text: "x"}, nil)
	assert.True(t, fsapi.HasCode(err, fsapi.CodeFileTooLarge), "one key for edit and insert: %v", err)

	small := newWorkspace(t, func(c *fslocal.Config) { c.EditMaxBytes = 10 })
	small.file("f.txt", "0123456789", 0o644)
	_, err = small.p.EditText(context.Background(), small.target("f.txt"), fsapi.EditRequest{OldString: "0", NewString: "x"}, nil)
	require.NoError(t, err, "a file of exactly editMaxBytes is edited")
	small.file("g.txt", "0123456789a", 0o644)
	_, err = small.p.EditText(context.Background(), small.target("g.txt"), fsapi.EditRequest{OldString: "0", NewString: "x"}, nil)
	assert.True(t, fsapi.HasCode(err, fsapi.CodeFileTooLarge))
	assert.Equal(t, "0123456789a", small.content("g.txt"))
}

// Below editMaxBytes an edit decides "binary" from the file's first 8192
// bytes before reading the rest: a 10 GB sparse file is answered without
// being read. The whole-file check still runs on text files.
func TestAnEditSniffsAPrefixBeforeReadingTheFile(t *testing.T) {
	w := newWorkspace(t, func(c *fslocal.Config) { c.EditMaxBytes = 20 << 30 })
	w.sparse("disk.img", 10<<30)
	tg := w.target("disk.img")
	var err error
	n := allocated(func() {
		_, err = w.p.EditText(context.Background(), tg, fsapi.EditRequest{OldString: "a", NewString: "b"}, nil)
	})
	assert.EqualError(t, err, `cannot edit "`+tg.DisplayPath+`": binary file`)
	assert.Less(t, n, uint64(1<<20), "only the prefix was read")
}

// replace_all holds no more than a one-span edit of the same file: the
// spans are never listed (a one-byte string in a 200 MB file made a list
// of 200 million offsets, 6.2 GB at its peak). Each edit allocates about
// the file twice (its bytes and the new text), and a CRLF file's LF view
// once more; the texts for the diff are left out here (a file past the
// diff basis), as they are for every file over 10 MiB.
func TestReplaceAllCostsWhatAOneSpanEditCosts(t *testing.T) {
	const size = 4 << 20
	ctx := fsapi.WithDiffBasis(context.Background(), 1)
	for _, eol := range []string{"\n", "\r\n"} {
		w := newWorkspace(t)
		line := strings.Repeat("a", 63-len(eol)) + eol
		text := strings.Repeat(line, size/len(line))
		w.file("all.txt", text, 0o644)
		w.file("one.txt", "unique"+text, 0o644)
		var errAll, errOne error
		var out fsapi.EditOutcome
		all := allocated(func() {
			out, errAll = w.p.EditText(ctx, w.target("all.txt"), fsapi.EditRequest{OldString: "a", NewString: "b", ReplaceAll: true}, nil)
		})
		one := allocated(func() {
			_, errOne = w.p.EditText(ctx, w.target("one.txt"), fsapi.EditRequest{OldString: "unique", NewString: "UNIQUE"}, nil)
		})
		require.NoError(t, errAll)
		require.NoError(t, errOne)
		assert.Equal(t, strings.Count(text, "a"), out.Replacements)
		assert.Equal(t, strings.ReplaceAll(text, "a", "b"), w.content("all.txt"))
		views := uint64(2)
		if eol == "\r\n" {
			views = 3
		}
		assert.Less(t, all, views*size+size/4, "eol %q: replace_all holds the file, the new text and the view", eol)
		assert.Less(t, float64(all)/float64(one), 1.1, "eol %q: replace_all %d bytes, one span %d", eol, all, one)
	}
}
