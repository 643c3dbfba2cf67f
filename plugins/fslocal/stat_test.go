package fslocal_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

var versionShape = regexp.MustCompile(`^\d+:\d+:\d+:\d+:\d+$`)

func TestStat(t *testing.T) {
	w := newWorkspace(t)
	w.file("f.txt", "hello", 0o644)
	w.mkdir("d")
	w.fifo("pipe")
	w.symlink("link", "f.txt")
	w.symlink("dirlink", "d")
	w.symlink("dangling", "nowhere")
	tests := []struct {
		name string
		path string
		typ  fsapi.EntryType
		size int64
	}{
		{"a regular file is a file with its byte size", "f.txt", fsapi.TypeFile, 5},
		{"a directory is a directory with a size", "d", fsapi.TypeDirectory, -1},
		{"a FIFO is other", "pipe", fsapi.TypeOther, 0},
		{"a symlink to a file is followed", "link", fsapi.TypeFile, 5},
		{"a symlink to a directory is followed", "dirlink", fsapi.TypeDirectory, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, err := w.p.Stat(context.Background(), w.target(tc.path))
			require.NoError(t, err)
			require.NotNil(t, info)
			assert.Equal(t, tc.typ, info.Type)
			assert.True(t, info.HasSize, "fslocal always sets the size")
			if tc.size >= 0 {
				assert.Equal(t, tc.size, info.Size)
			}
			assert.Regexp(t, versionShape, string(info.Version))
		})
	}
	absent := map[string]string{
		"a missing file is absent":                "missing.txt",
		"a dangling symlink is absent":            "dangling",
		"a path below a missing parent is absent": "no/such/file",
	}
	for name, path := range absent {
		t.Run(name, func(t *testing.T) {
			info, err := w.p.Stat(context.Background(), w.target(path))
			assert.NoError(t, err)
			assert.Nil(t, info)
		})
	}
	t.Run("a target whose parent became a file is absent (ENOTDIR)", func(t *testing.T) {
		tg := w.target("later/x.txt")
		w.file("later", "now a file", 0o644)
		info, err := w.p.Stat(context.Background(), tg)
		assert.NoError(t, err)
		assert.Nil(t, info)
	})
	t.Run("a cancelled context aborts", func(t *testing.T) {
		_, err := w.p.Stat(cancelled(), w.target("f.txt"))
		assert.EqualError(t, err, "stat aborted")
		assertCode(t, fsapi.CodeAborted, err)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestLstat(t *testing.T) {
	w := newWorkspace(t)
	w.file("f.txt", "hello", 0o644)
	w.mkdir("d")
	w.fifo("pipe")
	w.symlink("link", "f.txt")
	w.symlink("dangling", "nowhere")
	tests := []struct {
		name string
		path string
		typ  fsapi.EntryType
	}{
		{"a regular file is a file", "f.txt", fsapi.TypeFile},
		{"a directory is a directory", "d", fsapi.TypeDirectory},
		{"a FIFO is other", "pipe", fsapi.TypeOther},
		{"a symlink is a symlink, not followed", "link", fsapi.TypeSymlink},
		{"a dangling symlink is a symlink", "dangling", fsapi.TypeSymlink},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, err := w.p.Lstat(context.Background(), tc.path, fsapi.ResolveOptions{})
			require.NoError(t, err)
			require.NotNil(t, info)
			assert.Equal(t, tc.typ, info.Type)
			assert.True(t, info.HasSize)
			assert.Regexp(t, versionShape, string(info.Version))
		})
	}
	t.Run("a link's size is its own, not its target's", func(t *testing.T) {
		info, err := w.p.Lstat(context.Background(), "dangling", fsapi.ResolveOptions{})
		require.NoError(t, err)
		assert.Equal(t, int64(len("nowhere")), info.Size)
	})
	t.Run("a relative path uses the call's cwd", func(t *testing.T) {
		info, err := w.p.Lstat(context.Background(), "f.txt", fsapi.ResolveOptions{Cwd: w.dir})
		require.NoError(t, err)
		assert.Equal(t, fsapi.TypeFile, info.Type)
	})
	for name, path := range map[string]string{
		"a missing path is absent":                "missing",
		"a path through a regular file is absent": "f.txt/x",
	} {
		t.Run(name, func(t *testing.T) {
			info, err := w.p.Lstat(context.Background(), path, fsapi.ResolveOptions{})
			assert.NoError(t, err)
			assert.Nil(t, info)
		})
	}
	t.Run("a blank path is refused", func(t *testing.T) {
		_, err := w.p.Lstat(context.Background(), " \u3000", fsapi.ResolveOptions{})
		assert.EqualError(t, err, "file_path must be a non-empty string")
		assertCode(t, fsapi.CodeNotFound, err)
	})
	t.Run("a cancelled context aborts before the blank check", func(t *testing.T) {
		_, err := w.p.Lstat(cancelled(), "", fsapi.ResolveOptions{})
		assert.EqualError(t, err, "lstat aborted")
		assertCode(t, fsapi.CodeAborted, err)
	})
}
