package cmd_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheCheckpointCommands: `dshhost checkpoints` lists every
// conversation's steps, `dshhost rewind` puts them back with the tool's
// rules, and their exit codes say what happened (docs/checkpoints.md "The
// command line").
func TestTheCheckpointCommands(t *testing.T) {
	w := workspace(t)
	env := []string{"DSH_STATE_DIR=" + t.TempDir()}
	res := dshhost(t, w, "", env, "checkpoints")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "", res.stdout)
	assert.Equal(t, "dshhost: no steps yet in the checkpoint store of "+w+"\n", res.stderr)

	for _, c := range []string{`{"file_path":"a.txt","content":"one\n"}`, `{"file_path":"sub/b.txt","content":"two\n"}`} {
		res = dshhost(t, w, "", env, "call", "write", c)
		require.Equal(t, 0, res.code, res.stderr)
	}
	res = dshhost(t, w, "", env, "checkpoints")
	require.Equal(t, 0, res.code, res.stderr)
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	require.Len(t, lines, 2, res.stdout)
	assert.Regexp(t, `^1 \S+Z cli/call/\S+ write `+regexp.QuoteMeta(filepath.Join(w, "a.txt"))+` created \+1 -0$`, lines[0])
	assert.Regexp(t, `^2 \S+Z cli/call/\S+ write `+regexp.QuoteMeta(filepath.Join(w, "sub", "b.txt"))+` created \+1 -0$`, lines[1])

	res = dshhost(t, w, "", env, "rewind", "--paths", "", "0")
	assert.Equal(t, 2, res.code)
	assert.Equal(t, "dshhost rewind: --paths must name a file or directory, not \"\"\n", res.stderr)
	res = dshhost(t, w, "", env, "rewind", "x")
	assert.Equal(t, 2, res.code)
	res = dshhost(t, w, "", env, "rewind", "9")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "dshhost: step 9 does not exist\n", res.stderr)

	res = dshhost(t, w, "", env, "rewind", "--paths", "sub", "--paths", "../elsewhere.txt", "1")
	assert.Equal(t, 1, res.code, "a path was left alone")
	assert.Equal(t, "rewound to step 1: 0 restored, 1 deleted, 1 left alone; this rewind is step 3 (rewind to step 2 to undo it)\n"+
		"deleted "+filepath.Join(w, "sub", "b.txt")+"\n"+
		"left alone ../elsewhere.txt: cannot resolve \""+filepath.Join(filepath.Dir(w), "elsewhere.txt")+"\": outside the workspace\n", res.stdout)
	res = dshhost(t, w, "", env, "rewind", "2")
	assert.Equal(t, 0, res.code, res.stdout+res.stderr)
	assert.Contains(t, res.stdout, "restored "+filepath.Join(w, "sub", "b.txt"))
	res = dshhost(t, w, "", env, "rewind", "0")
	assert.Equal(t, 0, res.code, res.stdout+res.stderr)
	assert.NoFileExists(t, filepath.Join(w, "a.txt"))
	assert.NoFileExists(t, filepath.Join(w, "sub", "b.txt"))
}

// TestAHomeWorkspaceServesWithoutCheckpoints: with no DSH_STATE_DIR, a
// workspace that holds the default store (the home directory) still
// serves its tools; the commands say why nothing is recorded.
func TestAHomeWorkspaceServesWithoutCheckpoints(t *testing.T) {
	w := workspace(t)
	env := []string{"HOME=" + w, "DSH_STATE_DIR=", "XDG_STATE_HOME="}
	res := dshhost(t, w, "", env, "call", "write", `{"file_path":"a.txt","content":"x\n"}`)
	require.Equal(t, 0, res.code, res.stderr)
	res = dshhost(t, w, "", env, "checkpoints")
	assert.Equal(t, 2, res.code)
	assert.Regexp(t, `(?m)^dshhost: this deployment records no checkpoints: checkpoint: the default store ".*" is inside the workspace ".*", where the tools could change it; nothing is recorded: set DSH_STATE_DIR to a directory outside it$`, res.stderr)
	assert.NoDirExists(t, filepath.Join(w, ".local"))
}
