package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// protectedYAML is the layout docs/configuration.md shows (the file in the
// project, `workspace: .`) with every guard off: no sandbox, no policy, and
// hard links rewritten in place, so that only the protected files stand
// between the model and its own limits.
const protectedYAML = `workspace: .
plugins:
  - name: fslocal
    config: {hardLinks: preserve}
  - name: fssandbox
    disabled: true
  - name: fspolicy
    disabled: true
  - name: toolfs
  - name: toolsearch
  - name: tooleditor
`

// The model cannot lift its own confinement: under `serve --watch`, with
// the deployment file inside the workspace and the policy and the sandbox
// disabled, every tool that changes files refuses it through every
// spelling (its name, NFD for its NFC name, a symlink, a hard link, `..`,
// an absolute path), the file stays as it was, and no reload happens. After
// the operator replaces it (a new inode), the new file is protected too,
// and a hard link made to it is refused as well.
func TestAWatchedDeploymentFileInTheWorkspaceIsProtected(t *testing.T) {
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	file := filepath.Join(w, "café.yaml") // NFC
	l := startLiveIn(t, w, file, protectedYAML)
	require.NoError(t, os.Symlink("café.yaml", filepath.Join(w, "link.yaml")))
	require.NoError(t, os.Link(file, filepath.Join(w, "hard.yaml")))
	require.NoError(t, os.Mkdir(filepath.Join(w, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(w), "outside.txt"), []byte("outside"), 0o644))
	loosened := "plugins:\n  - name: fslocal\n    config: {root: /}\n  - name: toolfs\n"

	refused := func(spelling, shown string) {
		t.Helper()
		deployment := `": it is a deployment file of this server; no sandbox mode allows changing it (only the operator edits it)`
		for _, c := range []struct {
			tool string
			args map[string]any
			verb string
		}{
			{"write", map[string]any{"file_path": spelling, "content": loosened}, "write"},
			{"edit", map[string]any{"file_path": spelling, "old_string": "name: fslocal", "new_string": "name: fslocal\n    config: {root: /}"}, "edit"},
			{"edit", map[string]any{"file_path": spelling, "old_string": "disabled: true", "new_string": "disabled: false", "replace_all": true}, "edit"},
			{"str_replace_editor", map[string]any{"command": "create", "path": spelling, "file_text": loosened}, "write"},
			{"str_replace_editor", map[string]any{"command": "str_replace", "path": spelling, "old_str": "hardLinks: preserve", "new_str": "root: /"}, "edit"},
			{"str_replace_editor", map[string]any{"command": "insert", "path": spelling, "insert_line": 0, "new_str": "watch: false"}, "insert into"},
		} {
			text, isErr := l.call(c.tool, c.args)
			assert.True(t, isErr, "%s %s", c.tool, spelling)
			assert.Equal(t, "Error: cannot "+c.verb+` "`+shown+deployment, text, "%s %v", c.tool, c.args)
		}
		got, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Equal(t, protectedYAML, string(got), "through %s", spelling)
	}
	refused("café.yaml", w+"/café.yaml")
	refused("cafe\u0301.yaml", w+"/cafe\u0301.yaml") // NFD
	refused("link.yaml", w+"/link.yaml")
	refused("hard.yaml", w+"/hard.yaml")
	refused("sub/../café.yaml", w+"/café.yaml")
	refused("./sub/./../café.yaml", w+"/café.yaml")
	refused(file, file)

	text, isErr := l.call("read", map[string]any{"file_path": "link.yaml"})
	assert.False(t, isErr, "the model may read its deployment: %s", text)
	text, _ = l.call("read", map[string]any{"file_path": "../outside.txt"})
	assert.Contains(t, text, "outside the workspace", "the confinement still holds")
	l.quiet()

	// The operator saves a change by rename: a new inode, protected at the
	// reload, which takes the set again.
	changed := protectedYAML + "  - name: tools\n"
	l.replace(changed)
	require.NoError(t, l.next().Err)
	require.NoError(t, os.Link(file, filepath.Join(w, "hard2.yaml")))
	text, _ = l.call("write", map[string]any{"file_path": "hard2.yaml", "content": loosened})
	assert.Contains(t, text, "it is a deployment file of this server")
	text, _ = l.call("write", map[string]any{"file_path": "hard.yaml", "content": "old inode\n"})
	assert.Contains(t, text, "<type>file</type>", "the file the deployment was loaded from before the reload is free again: %s", text)
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, changed, string(got))
}
