package fsapi_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Protect registers paths with their real location and identity for as
// long as the registering scope lives; without a set it registers nothing.
func TestProtectRegistersForTheScopesLifetime(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
	require.NoError(t, os.Symlink("real", filepath.Join(dir, "link")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real", "token"), []byte("t"), 0o600))

	h := host.New()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	d, err := fsapi.Protect(h.Root(), fsapi.ProtectSecret, filepath.Join(dir, "link", "token"))
	require.NoError(t, err)
	require.NoError(t, d(context.Background()), "a bare host has no set: nothing to undo")

	set := fsapi.NewProtected()
	_, err = fsapi.ProtectedKey.Provide(h.Root(), set)
	require.NoError(t, err)
	var inst *host.Instance
	inst, err = h.Root().With(context.Background(), "keeper", nil, func(_ context.Context, s *host.Scope) error {
		_, err := fsapi.Protect(s, fsapi.ProtectSecret, filepath.Join(dir, "link", "token"), filepath.Join(dir, "link", "missing", "x"))
		return err
	})
	require.NoError(t, err)
	files := set.Files()
	require.Len(t, files, 2)
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(filepath.Join(dir, "real", "token"), &st))
	assert.Equal(t, fsapi.ProtectedFile{Kind: fsapi.ProtectSecret, Path: filepath.Join(dir, "link", "token"), Real: filepath.Join(dir, "real", "token"),
		Dev: uint64(st.Dev), Ino: uint64(st.Ino), HasID: true}, files[0])
	assert.Equal(t, filepath.Join(dir, "real", "missing", "x"), files[1].Real, "a missing path keeps the real location of what exists")
	assert.False(t, files[1].HasID)

	require.NoError(t, inst.Dispose(context.Background()))
	assert.Empty(t, set.Files(), "the registration ends with its scope")
}
