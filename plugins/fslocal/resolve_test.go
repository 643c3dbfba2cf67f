package fslocal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestResolveRefusesBlankPaths(t *testing.T) {
	w := newWorkspace(t)
	blanks := map[string]string{
		"the empty string":                    "",
		"spaces and tabs":                     " \t ",
		"the ASCII controls U+0009 to U+000D": "\t\n\v\f\r",
		"no-break space and Ogham space":      "\u00a0\u1680",
		"the U+2000 to U+200A spaces":         "\u2000\u2005\u200a",
		"line and paragraph separators":       "\u2028\u2029",
		"narrow, math and ideographic spaces": "\u202f\u205f\u3000",
		"a byte-order mark":                   "\ufeff",
	}
	for name, path := range blanks {
		t.Run(name+" is blank", func(t *testing.T) {
			_, err := w.p.Resolve(context.Background(), path, fsapi.ResolveOptions{})
			assert.EqualError(t, err, "file_path must be a non-empty string")
			assertCode(t, fsapi.CodeNotFound, err)
		})
	}
	t.Run("U+0085 is not whitespace", func(t *testing.T) {
		tg, err := w.p.Resolve(context.Background(), "\u0085", fsapi.ResolveOptions{})
		require.NoError(t, err)
		assert.Equal(t, w.path("\u0085"), tg.DisplayPath)
	})
}

// contract §6.4: with RealCwd a relative path joins the real location of
// the cwd (its symlinks resolved by the provider), so `..` walks the
// physical parent; without it the cwd is used as spelled; a cwd that does
// not resolve is used as spelled too. Lstat joins the same way.
func TestResolveRealCwd(t *testing.T) {
	w := newWorkspace(t)
	require.NoError(t, os.MkdirAll(w.path("a/real"), 0o755))
	require.NoError(t, os.Symlink("a/real", w.path("link")))
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts fsapi.ResolveOptions
		want string
	}{
		{"spelled", fsapi.ResolveOptions{Cwd: w.path("link")}, w.path("f")},
		{"real", fsapi.ResolveOptions{Cwd: w.path("link"), RealCwd: true}, w.path("a/f")},
		{"a relative cwd is taken against the provider's first", fsapi.ResolveOptions{Cwd: "link", RealCwd: true}, w.path("a/f")},
		{"a missing cwd keeps its spelling", fsapi.ResolveOptions{Cwd: w.path("gone/x"), RealCwd: true}, w.path("gone/f")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := w.p.Resolve(ctx, "../f", tc.opts)
			require.NoError(t, err)
			assert.Equal(t, tc.want, tg.DisplayPath)
		})
	}
	require.NoError(t, os.WriteFile(w.path("a/f"), []byte("x"), 0o644))
	info, err := w.p.Lstat(ctx, "../f", fsapi.ResolveOptions{Cwd: w.path("link"), RealCwd: true})
	require.NoError(t, err)
	require.NotNil(t, info, "Lstat finds a/f through the real cwd")
	assert.Equal(t, fsapi.TypeFile, info.Type)
}

func TestResolveDisplayPath(t *testing.T) {
	w := newWorkspace(t)
	other := t.TempDir()
	tests := []struct {
		name string
		path string
		cwd  string
		want string
	}{
		{"a relative path joins the provider cwd", "a/b.txt", "", w.path("a/b.txt")},
		{"a relative path joins the call's cwd", "b.txt", other, filepath.Join(other, "b.txt")},
		{"a relative call cwd joins the provider cwd", "b.txt", "sub", w.path("sub/b.txt")},
		{"an absolute path ignores both cwds", "/etc/hosts", other, "/etc/hosts"},
		{"dot is the cwd itself", ".", "", w.dir},
		{"dot-dot segments collapse", "a/../b/./c", "", w.path("b/c")},
		{"repeated slashes merge and a trailing slash drops", "a//b///", "", w.path("a/b")},
		{"dot-dot above the root stays at the root", "/../../x", "", "/x"},
		{"a tilde is not expanded", "~/x.txt", "", w.path("~/x.txt")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := w.p.Resolve(context.Background(), tc.path, fsapi.ResolveOptions{Cwd: tc.cwd})
			require.NoError(t, err)
			assert.Equal(t, tc.want, tg.DisplayPath)
		})
	}
	t.Run("the display path keeps symlinks unresolved", func(t *testing.T) {
		w.mkdir("real")
		w.symlink("alias", "real")
		tg := w.target("alias/f.txt")
		assert.Equal(t, w.path("alias/f.txt"), tg.DisplayPath)
	})
}

func TestResolveKey(t *testing.T) {
	w := newWorkspace(t)
	w.file("real/f.txt", "x", 0o644)
	w.symlink("dirlink", "real")
	w.symlink("filelink", "real/f.txt")
	w.symlink("abslink", w.path("real/f.txt"))
	w.symlink("chain", "filelink")
	w.symlink("dangling", "nowhere/deeper")
	w.file("plain.txt", "x", 0o644)
	tests := []struct {
		name string
		path string
		want string
	}{
		{"an existing file is its realpath", "real/f.txt", w.path("real/f.txt")},
		{"a symlinked directory resolves to the real directory", "dirlink/f.txt", w.path("real/f.txt")},
		{"a symlink as the last component resolves to its target", "filelink", w.path("real/f.txt")},
		{"an absolute link text resolves the same", "abslink", w.path("real/f.txt")},
		{"a chain of links resolves to the end", "chain", w.path("real/f.txt")},
		{"dot-dot spellings share the key", "real/../real/./f.txt", w.path("real/f.txt")},
		{"a missing file keeps the missing suffix", "real/new.txt", w.path("real/new.txt")},
		{"missing directories stay in the suffix", "real/a/b/new.txt", w.path("real/a/b/new.txt")},
		{"a missing file under a symlinked ancestor gets its future key", "dirlink/a/new.txt", w.path("real/a/new.txt")},
		{"a dangling symlink has its own key", "dangling", w.path("dangling")},
		{"a path below a dangling symlink keeps the link in its key", "dangling/x", w.path("dangling/x")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := w.target(tc.path)
			assert.Equal(t, tc.want, tg.Key)
			assert.Equal(t, w.path(tc.path), tg.DisplayPath)
		})
	}
}

func TestResolveFailures(t *testing.T) {
	w := newWorkspace(t)
	w.file("plain.txt", "x", 0o644)
	w.symlink("filelink", "plain.txt")
	w.symlink("loop1", "loop2")
	w.symlink("loop2", "loop1")
	t.Run("a regular file as a parent segment is not a directory", func(t *testing.T) {
		_, err := w.p.Resolve(context.Background(), "plain.txt/x", fsapi.ResolveOptions{})
		assert.EqualError(t, err, `cannot resolve "`+w.path("plain.txt/x")+`": a parent path segment is not a directory`)
		assertCode(t, fsapi.CodeNotFound, err)
		assert.ErrorIs(t, err, syscall.ENOTDIR)
	})
	t.Run("a link to a file as a parent segment is not a directory", func(t *testing.T) {
		_, err := w.p.Resolve(context.Background(), "filelink/deeper/x", fsapi.ResolveOptions{})
		assert.EqualError(t, err, `cannot resolve "`+w.path("filelink/deeper/x")+`": a parent path segment is not a directory`)
	})
	t.Run("a symlink loop passes through uncoded", func(t *testing.T) {
		_, err := w.p.Resolve(context.Background(), "loop1", fsapi.ResolveOptions{})
		require.Error(t, err)
		assert.ErrorIs(t, err, syscall.ELOOP)
		assertUncoded(t, err)
	})
	t.Run("a cancelled context aborts", func(t *testing.T) {
		_, err := w.p.Resolve(cancelled(), "plain.txt", fsapi.ResolveOptions{})
		assert.EqualError(t, err, "resolve aborted")
		assertCode(t, fsapi.CodeAborted, err)
		assert.ErrorIs(t, err, context.Canceled)
	})
	t.Run("an abort wins over a blank path", func(t *testing.T) {
		_, err := w.p.Resolve(cancelled(), "", fsapi.ResolveOptions{})
		assert.EqualError(t, err, "resolve aborted")
	})
	t.Run("a display path with invalid UTF-8 is shown with U+FFFD", func(t *testing.T) {
		_, err := w.p.Resolve(context.Background(), "plain.txt/\xff", fsapi.ResolveOptions{})
		assert.EqualError(t, err, `cannot resolve "`+w.path("plain.txt/\uFFFD")+`": a parent path segment is not a directory`)
	})
}

func TestRealPathIsTheKey(t *testing.T) {
	w := newWorkspace(t)
	w.file("real.txt", "x", 0o644)
	w.symlink("alias", "real.txt")
	tg := w.target("alias")
	real, ok := fsapi.RealPath(w.p, tg)
	require.True(t, ok)
	assert.Equal(t, w.path("real.txt"), real)
	_, err := os.Stat(real)
	assert.NoError(t, err)
}

// assertCode checks that err is an *fsapi.Error with code.
func assertCode(t *testing.T, code fsapi.Code, err error) {
	t.Helper()
	var fe *fsapi.Error
	if assert.ErrorAs(t, err, &fe) {
		assert.Equal(t, code, fe.Code)
	}
}

// assertUncoded checks that err carries no fs code.
func assertUncoded(t *testing.T, err error) {
	t.Helper()
	var fe *fsapi.Error
	assert.False(t, errors.As(err, &fe), "error %q must be uncoded", err)
}
