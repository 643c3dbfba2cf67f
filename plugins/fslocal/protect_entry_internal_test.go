package fslocal

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// TestEntryOperationsRefuseProtectedFiles: called directly, not through a
// tool, Remove, Move and MakeDirs refuse a protected file, a hard link to
// it (its identity), a directory that holds it and a directory below a
// protected one, and change nothing.
func TestEntryOperationsRefuseProtectedFiles(t *testing.T) {
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(w, "conf"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(w, "conf/dsh.yaml"), []byte("plugins: []\n"), 0o644))
	require.NoError(t, os.Link(filepath.Join(w, "conf/dsh.yaml"), filepath.Join(w, "alias.yaml")))
	require.NoError(t, os.MkdirAll(filepath.Join(w, "data"), 0o755))
	p, err := New(Config{Cwd: w, Root: w})
	require.NoError(t, err)
	defer p.Close()
	p.protected = fsapi.NewProtected()
	p.protected.Add(fsapi.ProtectConfig, filepath.Join(w, "conf/dsh.yaml"))
	p.protected.Add(fsapi.ProtectState, filepath.Join(w, "data"))
	ctx := context.Background()
	entry := func(name string) (fsapi.Target, fsapi.EntryType) {
		tg, info, err := p.ResolveEntry(ctx, name, fsapi.ResolveOptions{})
		require.NoError(t, err)
		if info == nil {
			return tg, ""
		}
		return tg, info.Type
	}
	protected := func(err error) { t.Helper(); assert.True(t, fsapi.HasCode(err, fsapi.CodeProtected), "%v", err) }

	for _, name := range []string{"conf/dsh.yaml", "alias.yaml", "conf"} {
		tg, typ := entry(name)
		protected(p.Remove(ctx, tg, fsapi.RemoveRequest{Type: typ}))
		dst, _ := entry("moved")
		_, err := p.Move(ctx, tg, dst, fsapi.MoveRequest{SourceType: typ})
		protected(err)
	}
	require.NoError(t, os.WriteFile(filepath.Join(w, "x.txt"), []byte("x"), 0o644))
	src, _ := entry("x.txt")
	dst, _ := entry("conf/dsh.yaml")
	_, err = p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile, Overwrite: true})
	protected(err)
	dst, _ = entry("data/x.txt")
	_, err = p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile})
	protected(err)
	tg, _ := entry("data/new")
	_, err = p.MakeDirs(ctx, tg)
	protected(err)

	b, err := os.ReadFile(filepath.Join(w, "conf/dsh.yaml"))
	require.NoError(t, err)
	assert.Equal(t, "plugins: []\n", string(b))
	assert.FileExists(t, filepath.Join(w, "alias.yaml"))
	assert.FileExists(t, filepath.Join(w, "x.txt"))
	assert.NoDirExists(t, filepath.Join(w, "data/new"))
	assert.NoFileExists(t, filepath.Join(w, "moved"))
	assert.Zero(t, p.LockCount())
}
