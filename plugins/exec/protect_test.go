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
	s := stacktest.New(t, stacktest.Options{NoPolicy: true, FSLocal: map[string]any{"root": "/"}})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	script := filepath.Join(dir, "guard.py")
	require.NoError(t, os.WriteFile(script, []byte("# the guard\n"), 0o644))
	cfg := config(t, s, "guard")
	cfg.Command = append(cfg.Command, "guard.py", "--strict")
	cfg.Dir = dir
	inst := mount(t, s, "guard", cfg)
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())

	var paths []string
	for _, f := range s.Protected.Files() {
		paths = append(paths, f.Path)
	}
	assert.ElementsMatch(t, []string{self(t), script}, paths, "command[0] (a path) and the script argument, not --strict")
	res := write(s, s.Conversation("c"), script, "print('pwned')\n")
	assert.Equal(t, `Error: cannot write "`+script+`": it is a deployment file of this server; no sandbox mode allows changing it (only the operator edits it)`, res.Text())
	b, err := os.ReadFile(script)
	require.NoError(t, err)
	assert.Equal(t, "# the guard\n", string(b))

	require.NoError(t, inst.Dispose(context.Background()))
	assert.Empty(t, s.Protected.Files(), "the protection ends with the entry")
}

// An entry whose code could be planted or changed through the tools is
// refused at load: a script in the workspace (an interpreter imports from
// its script's directory first, so a module written beside it would run),
// a program there, a `--flag=file` there, and a working directory there
// (`python3 -m` imports from it). Code outside the workspace mounts.
func TestAnEntrysCodeMustLieOutsideTheWorkspace(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{NoPolicy: true})
	outside, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, dir := range []string{s.W, outside} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "guard.py"), []byte("# the guard\n"), 0o644))
	}
	require.NoError(t, os.Symlink(self(t), filepath.Join(s.W, "child")))
	why := `is inside the workspace "` + s.W + `", where the tools could change it or plant code beside it; keep the plugin's files, and the deployment file of an exec entry, outside the workspace`
	for _, tc := range []struct {
		name, dir string
		args      []string
		want      string // "" for a mounted entry
	}{
		{"script in the workspace", outside, []string{filepath.Join(s.W, "guard.py")}, `command[1]: exec: the file "` + s.W + `/guard.py" ` + why},
		{"flag value in the workspace", outside, []string{"--script=" + s.W + "/guard.py"}, `command[1]: exec: the file "` + s.W + `/guard.py" ` + why},
		{"working directory in the workspace", s.W, []string{"-m", "guard"}, `command: exec: the working directory (the deployment file's directory) "` + s.W + `" ` + why},
		{"program in the workspace", outside, nil, `command[0]: exec: the directory of "` + s.W + `/child" ` + why},
		{"script outside", outside, []string{"guard.py"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(t, s, "guard")
			if tc.name == "program in the workspace" {
				cfg.Command = []string{filepath.Join(s.W, "child")}
			}
			cfg.Command = append(cfg.Command, tc.args...)
			cfg.Dir = tc.dir
			inst := mount(t, s, "guard", cfg)
			defer inst.Dispose(context.Background())
			if tc.want == "" {
				assert.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
				return
			}
			require.Error(t, inst.Err())
			assert.Contains(t, inst.Err().Error(), tc.want)
			assert.NotEqual(t, host.StateActive, inst.State())
		})
	}
}
