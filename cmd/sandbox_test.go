package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChoosingASandboxMode: the default deployment runs fssandbox in
// workspace-write; a flag, the environment or a deployment file make a
// read-only server; a bad value fails the load with exit 2 (sandbox.md §5).
func TestChoosingASandboxMode(t *testing.T) {
	w := workspace(t)
	refusal := `Error: cannot write "` + w + `/new.txt": the sandbox is in read-only mode — the sandbox mode is set by the operator; tell the user instead of retrying`
	write := `{"file_path":"new.txt","content":"x"}`
	file := writeFile(t, filepath.Join(t.TempDir(), "ro.yaml"), "plugins:\n  - name: fslocal\n  - {name: fssandbox, config: {mode: read-only}}\n  - name: fspolicy\n  - name: toolfs\n")
	for name, tc := range map[string]struct {
		env  []string
		args []string
	}{
		"flag": {args: []string{"--set", "fssandbox.mode=read-only"}},
		"env":  {env: []string{"DSH_FSSANDBOX_MODE=read-only"}},
		"file": {args: []string{"--config", file}},
	} {
		t.Run(name, func(t *testing.T) {
			res := dshhost(t, w, "", tc.env, append(append([]string{"call"}, tc.args...), "write", write)...)
			assert.Equal(t, 1, res.code, res.stderr)
			assert.Equal(t, refusal+"\n", res.stdout)
			assert.NoFileExists(t, filepath.Join(w, "new.txt"))
		})
	}
	t.Run("the default is workspace-write over the workspace, listed ACTIVE", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "plugins", "--json")
		require.Equal(t, 0, res.code, res.stderr)
		var infos []struct {
			ID, State string
			Injects   []string
		}
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &infos))
		var ids []string
		for _, in := range infos {
			ids = append(ids, in.ID)
			if in.ID == "fssandbox" {
				assert.Equal(t, "ACTIVE", in.State)
				assert.Empty(t, in.Injects, "no required service")
			}
		}
		assert.Equal(t, []string{"tools", "fslocal", "fssandbox", "fspolicy", "toolfs", "toolfiles", "toolsearch", "checkpoint"}, ids)
		res = dshhost(t, w, "", nil, "call", "write", write)
		assert.Equal(t, 0, res.code, res.stdout+res.stderr)
		res = dshhost(t, w, "", nil, "tools")
		require.Equal(t, 0, res.code)
		assert.NotContains(t, res.stdout, "sandbox_mode", "no tool without sessionSwitch")
	})
	t.Run("reads anywhere, writes in the workspace", func(t *testing.T) {
		outside := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(outside, "o.txt"), []byte("o\n"), 0o644))
		res := dshhost(t, w, "", nil, "call", "--set", "fslocal.root=/", "read", `{"file_path":"`+outside+`/o.txt"}`)
		assert.Equal(t, 0, res.code, res.stdout)
		res = dshhost(t, w, "", nil, "call", "--set", "fslocal.root=/", "write", `{"file_path":"`+outside+`/n.txt","content":"x"}`)
		assert.Equal(t, 1, res.code)
		assert.Contains(t, res.stdout, `the sandbox allows writes only under "`+w+`"`)
		res = dshhost(t, w, "", nil, "call", "--set", "fslocal.root=/", "--set", "fssandbox.mode=full-access", "write", `{"file_path":"`+outside+`/n.txt","content":"x"}`)
		assert.Equal(t, 0, res.code, res.stdout)
	})
	t.Run("a bad value fails the load", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "call", "--set", "fssandbox.mode=danger-full-access", "list", "{}")
		assert.Equal(t, 2, res.code)
		assert.Contains(t, res.stderr, `flag --set fssandbox.mode=danger-full-access: plugins[1].config.mode: fssandbox: mode must be "read-only", "workspace-write" or "full-access"`)
		res = dshhost(t, w, "", nil, "call", "--set", "fssandbox.writableRoots=[missing]", "list", "{}")
		assert.Equal(t, 2, res.code)
		assert.Contains(t, res.stderr, `fssandbox: writableRoots[0] must be an existing directory`)
	})
}
