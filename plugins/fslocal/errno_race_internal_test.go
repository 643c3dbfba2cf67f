package fslocal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// TestRaceRefusalsAreSandboxDenied: every operation of the tree that a
// symlink swapped in by a race would lead outside the root is refused, and
// the refusal is FS_SANDBOX_DENIED whatever the operation's error type
// (renameat and mkdirat wrap it differently from openat).
func TestRaceRefusalsAreSandboxDenied(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	w, out := filepath.Join(base, "w"), filepath.Join(base, "out")
	require.NoError(t, os.Mkdir(w, 0o755))
	require.NoError(t, os.Mkdir(out, 0o755))
	p, err := New(Config{Cwd: w, Root: w})
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, os.WriteFile(filepath.Join(w, "x"), []byte("x"), 0o644))
	require.NoError(t, os.Symlink("../out", filepath.Join(w, "d")))
	ops := map[string]error{
		"rename": p.tree.rename(filepath.Join(w, "x"), filepath.Join(w, "d/y")),
		"link":   p.tree.link(filepath.Join(w, "x"), filepath.Join(w, "d/y")),
		"mkdir":  p.tree.mkdirAll(filepath.Join(w, "d/a/b"), 0o755),
		"remove": p.tree.remove(filepath.Join(w, "d/y")),
	}
	_, ops["open"] = p.tree.openFile(filepath.Join(w, "d/y"), os.O_CREATE|os.O_WRONLY, 0o644)
	for name, err := range ops {
		require.Error(t, err, name)
		err = coded("write", "/w/p", err)
		assert.EqualError(t, err, `cannot resolve "/w/p": outside the workspace`, name)
		var fe *fsapi.Error
		require.True(t, errors.As(err, &fe), name)
		assert.Equal(t, fsapi.CodeSandboxDenied, fe.Code, name)
	}
	ents, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, ents, "nothing was made outside")
}
