package protectedpaths_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAThirdPartyGuardVetoesDeletesAndMoves: the guard on fs/remove-intent
// refuses a delete and a move of a protected file even after a read; the
// guard on fs/write-intent refuses a move onto it.
// Nothing changes on disk.
func TestAThirdPartyGuardVetoesDeletesAndMoves(t *testing.T) {
	w := tempDir(t)
	writeFile(t, w, ".env", "TOKEN=1\n")
	writeFile(t, w, "notes.txt", "draft\n")
	s := newStack(t, w, ".env")
	refused := func(op, p string) string {
		return `Error: cannot ` + op + ` "` + p + `": the path is protected by rule ".env"`
	}
	res := s.call(t, "read", map[string]any{"file_path": ".env"})
	require.False(t, res.IsError, res.Text())
	res = s.call(t, "delete", map[string]any{"path": ".env"})
	assert.Equal(t, refused("remove", w+"/.env"), res.Text())
	assert.Equal(t, "PATH_PROTECTED", res.Code())
	res = s.call(t, "move", map[string]any{"source": ".env", "destination": "env.bak"})
	assert.Equal(t, refused("remove", w+"/.env"), res.Text())
	res = s.call(t, "read", map[string]any{"file_path": "notes.txt"})
	require.False(t, res.IsError, res.Text())
	res = s.call(t, "move", map[string]any{"source": "notes.txt", "destination": ".env", "overwrite": true})
	assert.Equal(t, refused("write", w+"/.env"), res.Text())

	b, err := os.ReadFile(filepath.Join(w, ".env"))
	require.NoError(t, err)
	assert.Equal(t, "TOKEN=1\n", string(b))
	assert.FileExists(t, filepath.Join(w, "notes.txt"))
	assert.NoFileExists(t, filepath.Join(w, "env.bak"))

	res = s.call(t, "delete", map[string]any{"path": "notes.txt"})
	assert.Equal(t, "Deleted file "+w+"/notes.txt", res.Text(), "an unprotected file goes")
}
