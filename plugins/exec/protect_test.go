package exec_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
)

// The scripts an entry runs are protected deployment files while it is
// mounted: the model cannot rewrite the code the server runs.
func TestAnEntrysScriptsAreProtected(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{NoPolicy: true})
	script := filepath.Join(s.W, "guard.py")
	require.NoError(t, os.WriteFile(script, []byte("# the guard\n"), 0o644))
	cfg := config(t, s, "guard")
	cfg.Command = append(cfg.Command, "guard.py", "--strict")
	cfg.Dir = s.W
	inst := mount(t, s, "guard", cfg)
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())

	var paths []string
	for _, f := range s.Protected.Files() {
		paths = append(paths, f.Path)
	}
	assert.ElementsMatch(t, []string{self(t), script}, paths, "command[0] (a path) and the script argument, not --strict")
	res := write(s, s.Conversation("c"), "guard.py", "print('pwned')\n")
	assert.Equal(t, `Error: cannot write "`+script+`": it is a deployment file of this server; no sandbox mode allows changing it (only the operator edits it)`, res.Text())
	b, err := os.ReadFile(script)
	require.NoError(t, err)
	assert.Equal(t, "# the guard\n", string(b))

	require.NoError(t, inst.Dispose(context.Background()))
	assert.Empty(t, s.Protected.Files(), "the protection ends with the entry")
}
