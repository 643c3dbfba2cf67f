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

// The double faults of contract §3.7 step 10 need a removal or a close that
// fails, which no real write produces on demand.
func TestAbandonDoubleFaults(t *testing.T) {
	dir := t.TempDir()
	p, err := New(Config{Cwd: dir})
	require.NoError(t, err)
	first := errors.New("disk full")

	t.Run("a removal that fails is a cleanup double fault", func(t *testing.T) {
		f, err := os.Create(filepath.Join(dir, "f"))
		require.NoError(t, err)
		notEmpty := filepath.Join(dir, "busy")
		require.NoError(t, os.MkdirAll(filepath.Join(notEmpty, "child"), 0o755))
		err = p.abandon(f, notEmpty, first)
		require.Error(t, err)
		assert.Regexp(t, `^write failed \(disk full\) and temp cleanup failed \(remove .*busy: .+\)$`, err.Error())
		var fe *fsapi.Error
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, fsapi.CodeNotFound, fe.Code, "the code is odd but kept")
		assert.ErrorIs(t, err, first)
	})
	t.Run("a close that fails is a close double fault", func(t *testing.T) {
		f, err := os.Create(filepath.Join(dir, "g"))
		require.NoError(t, err)
		require.NoError(t, f.Close())
		err = p.abandon(f, filepath.Join(dir, "g"), first)
		assert.EqualError(t, err, "write failed (disk full) and temp close failed (close "+filepath.Join(dir, "g")+": file already closed)")
		assert.NoFileExists(t, filepath.Join(dir, "g"), "the staging file is removed")
	})
	t.Run("a clean abandon returns the first error and removes the file", func(t *testing.T) {
		f, err := os.Create(filepath.Join(dir, "h"))
		require.NoError(t, err)
		assert.Same(t, first, p.abandon(f, filepath.Join(dir, "h"), first))
		assert.NoFileExists(t, filepath.Join(dir, "h"))
	})
}

func TestReprobeOfAVanishedFileIsTheMissingSentinel(t *testing.T) {
	dir := t.TempDir()
	p, err := New(Config{Cwd: dir})
	require.NoError(t, err)
	key := filepath.Join(dir, "gone.txt")
	v, err := p.reprobe(fsapi.Target{Key: key, DisplayPath: key}, "write")
	require.NoError(t, err)
	assert.Equal(t, fsapi.Version("missing:"+key), v)
}
