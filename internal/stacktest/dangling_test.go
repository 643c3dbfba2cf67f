package stacktest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// danglingLink makes name a symlink to the missing nowhere.txt.
func danglingLink(t *testing.T, s *stacktest.Stack, name string) {
	t.Helper()
	require.NoError(t, os.Symlink("nowhere.txt", filepath.Join(s.W, name)))
}

// replacedLink checks that name became a regular file holding text and that
// the link's target was not created (contract E28).
func replacedLink(t *testing.T, s *stacktest.Stack, name, text string) {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(s.W, name))
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "the link was replaced by a regular file")
	assert.Equal(t, text, read(t, s, name))
	_, err = os.Lstat(filepath.Join(s.W, "nowhere.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the link's target is not created")
}

// A dangling symlink counts as missing for the no-clobber create (contract
// §3.2, E28, [D18]): with the policy on, write creates the file the first
// time, where it answered `cannot overwrite existing` (and did again after
// a read).
func TestWriteOverADanglingLinkWithThePolicyCreates(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	danglingLink(t, s, "dl")
	res := s.Call(t.Context(), s.Conversation("w"), "write", `{"file_path":"dl","content":"x"}`)
	assert.Equal(t, "<path>"+s.W+"/dl</path>\n<type>file</type>\n<content>\nCreated file\n</content>", res.Text())
	replacedLink(t, s, "dl", "x")

	danglingLink(t, s, "dl2")
	conv := s.Conversation("r")
	res = s.Call(t.Context(), conv, "read", `{"file_path":"dl2"}`)
	assert.Equal(t, "Error: cannot read \""+s.W+"/dl2\": not found", res.Text())
	res = s.Call(t.Context(), conv, "write", `{"file_path":"dl2","content":"y"}`)
	assert.False(t, res.IsError, "the write after a read: %s", res.Text())
	replacedLink(t, s, "dl2", "y")
}

// str_replace_editor create over a dangling symlink creates the file
// (editor.md §9), where it answered `File already exists`.
func TestEditorCreateOverADanglingLinkCreates(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{ToolEditor: map[string]any{}})
	danglingLink(t, s, "dl")
	res := s.Call(t.Context(), s.Conversation("c"), "str_replace_editor", `{"command":"create","path":"dl","file_text":"z"}`)
	assert.Equal(t, "New file created successfully at: "+s.W+"/dl", res.Text())
	replacedLink(t, s, "dl", "z")
}

// A create never clobbers: a link that leads to a file is not dangling,
// and the guarded create refuses it as before.
func TestACreateNeverReplacesALinkToAFile(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{ToolEditor: map[string]any{}})
	write(t, s, "real.txt", "keep")
	require.NoError(t, os.Symlink("real.txt", filepath.Join(s.W, "l")))
	res := s.Call(t.Context(), s.Conversation("c"), "str_replace_editor", `{"command":"create","path":"l","file_text":"z"}`)
	assert.Equal(t, "Error: File already exists at: "+s.W+"/l. Cannot overwrite files using command `create`.", res.Text())
	assert.Equal(t, "keep", read(t, s, "real.txt"))
}
