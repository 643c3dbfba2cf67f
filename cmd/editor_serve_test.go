package cmd_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// editorParameters is the argument schema of editor.md §4.2, byte for byte.
const editorParameters = `{"type":"object","properties":{"command":{"type":"string","enum":["view","create","str_replace","insert"],"description":"The operation to run: view, create, str_replace or insert."},"path":{"type":"string","description":"The file or directory to act on: an absolute path, or a path relative to the session workspace."},"file_text":{"type":"string","description":"For create (required): the full content of the new file; it may be empty."},"insert_line":{"type":"integer","description":"For insert (required): the line after which new_str goes. 0 inserts before line 1; the file's line count appends after the last line."},"new_str":{"type":"string","description":"For str_replace: the text that takes old_str's place; omit it, or send an empty string, to delete old_str. For insert (required): the text to insert."},"old_str":{"type":"string","description":"For str_replace (required): the exact text to replace; it must occur exactly once in the file, whitespace and indentation included."},"view_range":{"type":"array","items":{"type":"integer"},"description":"For view of a file: [first, last], 1-based line numbers, both included; last may be -1 for the end of the file. Without it the whole file is shown."}},"required":["command","path"]}`

// TestServeTheEditorOverStdio starts `dshhost serve` with a deployment that
// lists tooleditor, connects with the go-sdk client, lists the tool with its
// schema and runs view → str_replace → view (editor.md §15 X6).
func TestServeTheEditorOverStdio(t *testing.T) {
	w := workspace(t)
	writeFile(t, filepath.Join(w, "config.txt"), "mode=DEBUG\nlevel=info\n")
	config := filepath.Join(t.TempDir(), "editor.yaml")
	writeFile(t, config, "plugins:\n  - name: fslocal\n  - name: fspolicy\n  - name: toolfs\n  - name: tooleditor\n  - name: mcp\n")
	cmd := exec.Command(binary, "serve", "--config", config, "--workspace", w)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Minute}, nil)
	require.NoError(t, err)

	assert.Contains(t, cs.InitializeResult().Instructions, "Use the str_replace_editor tool to view and change text files")

	tl, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	var names []string
	var editor *mcp.Tool
	for _, tool := range tl.Tools {
		names = append(names, tool.Name)
		if tool.Name == "str_replace_editor" {
			editor = tool
		}
	}
	assert.ElementsMatch(t, []string{"list", "read", "write", "edit", "str_replace_editor"}, names)
	require.NotNil(t, editor)
	schema, err := json.Marshal(editor.InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, editorParameters[:len(editorParameters)-1]+`,"additionalProperties":false}`, string(schema), "editor.md §4.2, closed over MCP (contract §5.3 [D22])")
	assert.Contains(t, editor.Description, "* Long output is cut off and marked with <response clipped>.", "no HTML escaping reaches the model")
	out, err := json.Marshal(editor.OutputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"command":{"enum":["view","create","str_replace","insert"]},"path":{"type":"string"}},"required":["command","path"],"additionalProperties":false}`, string(out))
	assert.False(t, editor.Annotations.ReadOnlyHint)
	assert.True(t, *editor.Annotations.DestructiveHint)

	res := callTool(t, cs, "str_replace_editor", map[string]any{"command": "view", "path": "config.txt"})
	assert.False(t, res.IsError)
	assert.Equal(t, "Here's the content of "+w+"/config.txt with line numbers (which has a total of 3 lines):\n     1  mode=DEBUG\n     2  level=info\n     3  \n", text(t, res))
	assert.Equal(t, map[string]any{"command": "view", "path": w + "/config.txt"}, res.StructuredContent)
	assert.Nil(t, res.Meta["diffs"], "a view has no diff")

	res = callTool(t, cs, "str_replace_editor", map[string]any{"command": "str_replace", "path": "config.txt", "old_str": "DEBUG", "new_str": "RELEASE"})
	assert.False(t, res.IsError)
	assert.Equal(t, "The file "+w+"/config.txt has been edited successfully.", text(t, res))
	assert.Equal(t, map[string]any{"command": "str_replace", "path": w + "/config.txt"}, res.StructuredContent)
	diffs, _ := json.Marshal(res.Meta["diffs"])
	assert.JSONEq(t, `[{"path":"config.txt","oldText":"mode=DEBUG\nlevel=info","newText":"mode=RELEASE\nlevel=info"}]`, string(diffs))

	res = callTool(t, cs, "str_replace_editor", map[string]any{"command": "view", "path": "config.txt", "view_range": []int{1, 1}})
	assert.False(t, res.IsError)
	assert.Equal(t, "Here's the content of "+w+"/config.txt with line numbers (which has a total of 3 lines) with view_range=[1, 1]:\n     1  mode=RELEASE\n", text(t, res))
	data, err := os.ReadFile(filepath.Join(w, "config.txt"))
	require.NoError(t, err)
	assert.Equal(t, "mode=RELEASE\nlevel=info\n", string(data))

	res = callTool(t, cs, "str_replace_editor", map[string]any{"command": "str_replace", "path": "config.txt", "old_str": "info", "new_str": "debug"})
	assert.False(t, res.IsError, "its own edit keeps the session's observation current")

	assert.NoError(t, cs.Close())
}
