package fslocal_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// confinedEntries returns a provider confined to a fresh workspace and the
// workspace.
func confinedEntries(t *testing.T) (*fslocal.Provider, string) {
	t.Helper()
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	p, err := fslocal.New(fslocal.Config{Cwd: w, Root: w})
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return p, w
}

func entry(t *testing.T, p *fslocal.Provider, path string) (fsapi.Target, *fsapi.PathInfo) {
	t.Helper()
	tg, info, err := p.ResolveEntry(context.Background(), path, fsapi.ResolveOptions{})
	require.NoError(t, err)
	return tg, info
}

func code(t *testing.T, err error) fsapi.Code {
	t.Helper()
	var fe *fsapi.Error
	require.ErrorAs(t, err, &fe)
	return fe.Code
}

func TestResolveEntryNamesALinkItself(t *testing.T) {
	p, w := confinedEntries(t)
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("a"), 0o644))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(w, "l")))
	require.NoError(t, os.Symlink("nowhere", filepath.Join(w, "dangling")))
	require.NoError(t, os.Mkdir(filepath.Join(w, "d"), 0o755))
	require.NoError(t, os.Symlink("d", filepath.Join(w, "dl")))

	tg, info := entry(t, p, "l")
	assert.Equal(t, w+"/l", tg.Key, "the link's key is its own, not its target's")
	assert.Equal(t, fsapi.TypeSymlink, info.Type)
	tg, info = entry(t, p, "dl/../a.txt")
	assert.Equal(t, w+"/a.txt", tg.Key, "a parent is followed")
	assert.Equal(t, fsapi.TypeFile, info.Type)
	r, err := p.Resolve(context.Background(), "a.txt", fsapi.ResolveOptions{})
	require.NoError(t, err)
	assert.Equal(t, r.Key, tg.Key, "a file has Resolve's key")
	_, info = entry(t, p, "dangling")
	assert.Equal(t, fsapi.TypeSymlink, info.Type)
	tg, info = entry(t, p, "new/deeper")
	assert.Nil(t, info)
	assert.Equal(t, w+"/new/deeper", tg.Key)
	_, _, err = p.ResolveEntry(context.Background(), "../x", fsapi.ResolveOptions{})
	assert.Equal(t, fsapi.CodeSandboxDenied, code(t, err))
}

func TestRemoveTakesAFileALinkOrAnEmptyDirectory(t *testing.T) {
	p, w := confinedEntries(t)
	ctx := context.Background()
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("a"), 0o644))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(w, "l")))
	require.NoError(t, os.MkdirAll(filepath.Join(w, "full/x"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(w, "empty"), 0o755))

	tg, _ := entry(t, p, "l")
	require.NoError(t, p.Remove(ctx, tg, fsapi.RemoveRequest{Type: fsapi.TypeSymlink}))
	assert.NoFileExists(t, filepath.Join(w, "l"))
	assert.FileExists(t, filepath.Join(w, "a.txt"), "the link's target stays")

	tg, info := entry(t, p, "a.txt")
	err := p.Remove(ctx, tg, fsapi.RemoveRequest{Type: fsapi.TypeFile, Guard: &fsapi.RemoveGuard{Version: "stale"}})
	assert.Equal(t, fsapi.CodeStaleVersion, code(t, err))
	assert.EqualError(t, err, `cannot delete "`+w+`/a.txt": file changed since it was read`)
	err = p.Remove(ctx, tg, fsapi.RemoveRequest{Type: fsapi.TypeDirectory})
	assert.Equal(t, fsapi.CodeStaleVersion, code(t, err), "the type the intent was decided for")
	require.NoError(t, p.Remove(ctx, tg, fsapi.RemoveRequest{Type: fsapi.TypeFile, Guard: &fsapi.RemoveGuard{Version: info.Version}}))
	assert.NoFileExists(t, filepath.Join(w, "a.txt"))
	err = p.Remove(ctx, tg, fsapi.RemoveRequest{Type: fsapi.TypeFile})
	assert.EqualError(t, err, `cannot delete "`+w+`/a.txt": not found`)

	tg, _ = entry(t, p, "full")
	err = p.Remove(ctx, tg, fsapi.RemoveRequest{Type: fsapi.TypeDirectory})
	assert.Equal(t, fsapi.CodeDirectoryNotEmpty, code(t, err))
	assert.DirExists(t, filepath.Join(w, "full/x"))
	tg, _ = entry(t, p, "empty")
	require.NoError(t, p.Remove(ctx, tg, fsapi.RemoveRequest{Type: fsapi.TypeDirectory}))
	assert.NoDirExists(t, filepath.Join(w, "empty"))

	tg, _ = entry(t, p, ".")
	assert.Equal(t, fsapi.CodeSandboxDenied, code(t, p.Remove(ctx, tg, fsapi.RemoveRequest{Type: fsapi.TypeDirectory})))
	assert.Zero(t, p.LockCount())
}

func TestMoveNeverReplacesWithoutOverwrite(t *testing.T) {
	for name, disable := range map[string]bool{"renameat2": false, "link and unlink": true} {
		t.Run(name, func(t *testing.T) {
			if disable {
				defer fslocal.DisableRenameNoReplace()()
			}
			p, w := confinedEntries(t)
			ctx := context.Background()
			require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("a"), 0o640))
			require.NoError(t, os.WriteFile(filepath.Join(w, "b.txt"), []byte("b"), 0o644))
			src, _ := entry(t, p, "a.txt")
			dst, info := entry(t, p, "b.txt")
			_, err := p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile})
			assert.EqualError(t, err, `cannot move to "`+w+`/b.txt": the destination exists; set overwrite to true to replace it`)
			assert.Equal(t, fsapi.CodeAlreadyExists, code(t, err))

			_, err = p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile, Overwrite: true,
				Intent: &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}})
			assert.Equal(t, fsapi.CodeNotObserved, code(t, err), "the destination's intent is checked as a write's")
			out, err := p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile, Overwrite: true,
				Intent: &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: info.Version}})
			require.NoError(t, err)
			assert.NotEmpty(t, out.Version)
			b, err := os.ReadFile(filepath.Join(w, "b.txt"))
			require.NoError(t, err)
			assert.Equal(t, "a", string(b))
			assert.NoFileExists(t, filepath.Join(w, "a.txt"))

			src, _ = entry(t, p, "b.txt")
			dst, _ = entry(t, p, "sub/dir/c.txt")
			_, err = p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile})
			require.NoError(t, err, "missing parents are created")
			fi, err := os.Stat(filepath.Join(w, "sub/dir/c.txt"))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())

			require.NoError(t, os.MkdirAll(filepath.Join(w, "tree/x"), 0o755))
			src, _ = entry(t, p, "tree")
			dst, _ = entry(t, p, "moved")
			_, err = p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeDirectory})
			if disable {
				assert.EqualError(t, err, `cannot move "`+w+`/tree": this file system cannot move a directory without risking replacing the destination`)
				return
			}
			require.NoError(t, err)
			assert.DirExists(t, filepath.Join(w, "moved/x"))
			assert.Zero(t, p.LockCount())
		})
	}
}

func TestMoveRefusesADirectoryDestinationAndItself(t *testing.T) {
	p, w := confinedEntries(t)
	ctx := context.Background()
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("a"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(w, "d/e"), 0o755))
	src, _ := entry(t, p, "a.txt")
	dst, _ := entry(t, p, "d")
	_, err := p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile, Overwrite: true})
	assert.EqualError(t, err, `cannot move to "`+w+`/d": the destination is a directory; end it with / to move into it`)
	src, _ = entry(t, p, "d")
	dst, _ = entry(t, p, "d/e/f")
	_, err = p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeDirectory})
	assert.EqualError(t, err, `cannot move "`+w+`/d": the destination is the source or inside it`)
	assert.FileExists(t, filepath.Join(w, "a.txt"))
}

func TestMoveOfALinkMovesTheLink(t *testing.T) {
	p, w := confinedEntries(t)
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("a"), 0o644))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(w, "l")))
	src, info := entry(t, p, "l")
	dst, _ := entry(t, p, "m")
	_, err := p.Move(context.Background(), src, dst, fsapi.MoveRequest{SourceType: info.Type})
	require.NoError(t, err)
	text, err := os.Readlink(filepath.Join(w, "m"))
	require.NoError(t, err)
	assert.Equal(t, "a.txt", text)
	assert.FileExists(t, filepath.Join(w, "a.txt"))
}

func TestMakeDirsCreatesParentsAndAcceptsADirectory(t *testing.T) {
	p, w := confinedEntries(t)
	ctx := context.Background()
	tg, _ := entry(t, p, "a/b/c")
	n, err := p.MakeDirs(ctx, tg)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	fi, err := os.Stat(filepath.Join(w, "a/b/c"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
	n, err = p.MakeDirs(ctx, tg)
	require.NoError(t, err)
	assert.Zero(t, n)
	require.NoError(t, os.WriteFile(filepath.Join(w, "f"), nil, 0o644))
	tg, _ = entry(t, p, "f")
	_, err = p.MakeDirs(ctx, tg)
	assert.EqualError(t, err, `cannot mkdir "`+w+`/f": a file that is not a directory exists there`)
	assert.Equal(t, fsapi.CodeNotDirectory, code(t, err))
}

// TestAMoveNeverClobbersARacingCreator: a program that takes none of our
// locks creates the destination after the move checked it; the rename
// refuses to replace it (RENAME_NOREPLACE, or link(2) where the flag is
// refused), so the racer's bytes survive and the source stays whole.
func TestAMoveNeverClobbersARacingCreator(t *testing.T) {
	for name, disable := range map[string]bool{"renameat2": false, "link and unlink": true} {
		t.Run(name, func(t *testing.T) {
			if disable {
				defer fslocal.DisableRenameNoReplace()()
			}
			p, w := confinedEntries(t)
			require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("mine"), 0o644))
			defer fslocal.SetMoveHook(func() {
				require.NoError(t, os.WriteFile(filepath.Join(w, "b.txt"), []byte("theirs"), 0o644))
			})()
			src, _ := entry(t, p, "a.txt")
			dst, _ := entry(t, p, "b.txt")
			_, err := p.Move(context.Background(), src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile})
			assert.Equal(t, fsapi.CodeAlreadyExists, code(t, err))
			b, err := os.ReadFile(filepath.Join(w, "b.txt"))
			require.NoError(t, err)
			assert.Equal(t, "theirs", string(b), "the racer's file is not clobbered")
			b, err = os.ReadFile(filepath.Join(w, "a.txt"))
			require.NoError(t, err)
			assert.Equal(t, "mine", string(b), "the source is whole")
		})
	}
}
