package fslocal_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// entryMap indexes a listing by name.
func entryMap(entries []fsapi.DirEntry) map[string]fsapi.DirEntry {
	m := map[string]fsapi.DirEntry{}
	for _, e := range entries {
		m[e.Name] = e
	}
	return m
}

func TestListDirEntries(t *testing.T) {
	w := newWorkspace(t)
	populate(w)

	entries, err := w.p.ListDir(context.Background(), w.target("d"))
	require.NoError(t, err)
	m := entryMap(entries)
	require.Len(t, m, 8)

	tests := []struct {
		name    string
		entry   string
		typ     fsapi.EntryType
		key     string
		version bool
		size    int64 // -1: no size
	}{
		{"a file has its size and version", "file.txt", fsapi.TypeFile, w.path("d/file.txt"), true, 5},
		{"a directory has a version and no size", "sub", fsapi.TypeDirectory, w.path("d/sub"), true, -1},
		{"a FIFO is other with a version", "pipe", fsapi.TypeOther, w.path("d/pipe"), true, -1},
		{"a link to a file is a file keyed by its target", "to-file", fsapi.TypeFile, w.path("elsewhere/target.txt"), true, 3},
		{"a link to a directory is a directory keyed by its target", "to-dir", fsapi.TypeDirectory, w.path("elsewhere/dir"), true, -1},
		{"a broken link is other without version or size", "broken", fsapi.TypeOther, w.path("d/broken"), false, -1},
		{"a link loop is other and does not fail the listing", "loop", fsapi.TypeOther, w.path("d/loop"), false, -1},
		{"a link through a file is other", "through-file", fsapi.TypeOther, w.path("d/through-file"), false, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := m[tc.entry]
			require.True(t, ok)
			assert.Equal(t, tc.typ, e.Type)
			assert.Equal(t, tc.key, e.Target.Key)
			assert.Equal(t, w.path("d/"+tc.entry), e.Target.DisplayPath)
			if tc.version {
				assert.Regexp(t, versionShape, string(e.Version))
			} else {
				assert.Empty(t, e.Version)
			}
			if tc.size >= 0 {
				assert.True(t, e.HasSize)
				assert.Equal(t, tc.size, e.Size)
			} else {
				assert.False(t, e.HasSize)
			}
		})
	}
	t.Run("a file entry's version equals Stat's", func(t *testing.T) {
		info, err := w.p.Stat(context.Background(), m["to-file"].Target)
		require.NoError(t, err)
		assert.Equal(t, info.Version, m["to-file"].Version)
	})
}

func TestListDirSortsByCollation(t *testing.T) {
	w := newWorkspace(t)
	for _, n := range []string{"Zed", "README.txt", "b", "alpha", "_x", ".hidden", "10", "9", "A", "a"} {
		w.file("d/"+n, "", 0o644)
	}
	entries, err := w.p.ListDir(context.Background(), w.target("d"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	assert.Equal(t, []string{"_x", ".hidden", "10", "9", "a", "A", "alpha", "b", "README.txt", "Zed"}, names)
}

func TestListDirThroughARepointedLink(t *testing.T) {
	w := newWorkspace(t)
	w.file("one/a.txt", "", 0o644)
	w.file("two/b.txt", "", 0o644)
	w.symlink("cur", "one")
	tg := w.target("cur")
	require.NoError(t, os.Remove(w.path("cur")))
	w.symlink("cur", "two")
	entries, err := w.p.ListDir(context.Background(), tg)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "a.txt", entries[0].Name, "the listing enumerates the directory resolved before")
	assert.Equal(t, w.path("one/a.txt"), entries[0].Target.Key)
	assert.Equal(t, w.path("cur/a.txt"), entries[0].Target.DisplayPath)
}

func TestListDirFailures(t *testing.T) {
	w := newWorkspace(t)
	w.file("f.txt", "", 0o644)
	w.fifo("pipe")
	w.mkdir("gone")
	gone := w.target("gone")
	require.NoError(t, os.Remove(w.path("gone")))
	w.mkdir("became-loop")
	loop := w.target("became-loop")
	require.NoError(t, os.Remove(w.path("became-loop")))
	w.symlink("became-loop", "became-loop")
	through := w.target("later/x")
	w.file("later", "", 0o644)

	tests := []struct {
		name   string
		target fsapi.Target
		msg    string
		code   fsapi.Code
	}{
		{"a missing directory is not found", w.target("missing"), `cannot list "` + w.path("missing") + `": not found`, fsapi.CodeNotFound},
		{"a directory that vanished is not found", gone, `cannot list "` + w.path("gone") + `": not found`, fsapi.CodeNotFound},
		{"a path through a file is not found", through, `cannot list "` + w.path("later/x") + `": not found`, fsapi.CodeNotFound},
		{"a file is not a directory", w.target("f.txt"), `cannot list "` + w.path("f.txt") + `": not a directory`, fsapi.CodeNotDirectory},
		{"a FIFO is not a directory", w.target("pipe"), `cannot list "` + w.path("pipe") + `": not a directory`, fsapi.CodeNotDirectory},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.p.ListDir(context.Background(), tc.target)
			assert.EqualError(t, err, tc.msg)
			assertCode(t, tc.code, err)
		})
	}
	t.Run("a symlink loop is an I/O error with the cause text", func(t *testing.T) {
		_, err := w.p.ListDir(context.Background(), loop)
		require.Error(t, err)
		assert.Regexp(t, `^cannot list "`+w.path("became-loop")+`": \S`, err.Error())
		assertCode(t, fsapi.CodeIOError, err)
	})
	t.Run("a cancelled context aborts", func(t *testing.T) {
		_, err := w.p.ListDir(cancelled(), w.target("."))
		assert.EqualError(t, err, "list aborted")
		assertCode(t, fsapi.CodeAborted, err)
	})
}
