package fslocal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// escapes recognises os.Root's refusal by its text, the only handle the os
// package offers; this test fails if a Go release rewords it.
func TestEscapesRecognisesTheRootRefusal(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Symlink("/", filepath.Join(dir, "up")))
	r, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer r.Close()
	for _, name := range []string{"../x", "up/etc"} {
		_, err := r.Stat(name)
		require.Error(t, err)
		assert.True(t, escapes(err), "%s: %v", name, err)
	}
	assert.True(t, escapes(&fs.PathError{Op: "open", Path: "/x", Err: errEscapes}))
	assert.False(t, escapes(&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}))
}

func TestCoded(t *testing.T) {
	eacces := &fs.PathError{Op: "open", Path: "/k", Err: syscall.EACCES}
	eperm := &fs.PathError{Op: "open", Path: "/k", Err: syscall.EPERM}
	enospc := &fs.PathError{Op: "write", Path: "/k", Err: syscall.ENOSPC}
	assert.EqualError(t, coded("write", "/d", eacces), `cannot write "/d": permission denied`)
	assert.EqualError(t, coded("edit", "/d", eperm), `cannot edit "/d": permission denied`)
	assert.EqualError(t, coded("read", "/d", &fs.PathError{Err: errEscapes}), `cannot resolve "/d": outside the workspace`)
	assert.Same(t, error(enospc), coded("write", "/d", enospc), "other errors pass through uncoded")
	aborted := fsapi.ErrAborted("write", errors.New("x"))
	assert.Same(t, error(aborted), coded("write", "/d", aborted), "coded errors are kept")
	assert.True(t, absent(syscall.ENOTDIR))
	assert.True(t, absent(&fs.PathError{Err: syscall.ENOENT}))
	assert.False(t, absent(eacces))
}
