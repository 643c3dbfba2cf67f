package fslocal_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestVersion(t *testing.T) {
	w := newWorkspace(t)
	ctx := context.Background()
	w.file("f.txt", "aaaa", 0o644)
	tg := w.target("f.txt")
	stat := func() fsapi.Version {
		t.Helper()
		info, err := w.p.Stat(ctx, tg)
		require.NoError(t, err)
		require.NotNil(t, info)
		return info.Version
	}
	t.Run("the token is dev:ino:size:mtimeNs:ctimeNs of a followed stat", func(t *testing.T) {
		fi, err := os.Stat(w.path("f.txt"))
		require.NoError(t, err)
		v := string(stat())
		assert.Regexp(t, versionShape, v)
		assert.Contains(t, v, ":4:"+itoa(fi.ModTime().UnixNano())+":")
	})
	t.Run("an unchanged file keeps its version", func(t *testing.T) {
		assert.Equal(t, stat(), stat())
	})
	t.Run("a same-size rewrite with the mtime restored changes the version", func(t *testing.T) {
		before := stat()
		fi, err := os.Stat(w.path("f.txt"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(w.path("f.txt"), []byte("bbbb"), 0o644))
		require.NoError(t, os.Chtimes(w.path("f.txt"), fi.ModTime(), fi.ModTime()))
		assert.NotEqual(t, before, stat())
	})
	t.Run("a staged replace of the same bytes yields a new inode and version", func(t *testing.T) {
		before := stat()
		out, err := w.p.WriteText(ctx, tg, w.content("f.txt"), nil)
		require.NoError(t, err)
		assert.NotEqual(t, before, out.Version)
		assert.Equal(t, stat(), out.Version)
		assert.NotEqual(t, inode(t, before), inode(t, out.Version))
	})
	t.Run("an in-place rewrite of the same size changes the version", func(t *testing.T) {
		require.NoError(t, os.Link(w.path("f.txt"), w.path("hard.txt")))
		before := stat()
		out, err := w.p.WriteText(ctx, tg, "cccc", nil)
		require.NoError(t, err)
		assert.Equal(t, inode(t, before), inode(t, out.Version), "rewritten in place")
		assert.NotEqual(t, before, out.Version)
	})
}
