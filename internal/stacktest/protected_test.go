package stacktest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// keeps is the end of a refusal of a file the server keeps for itself.
const keeps = `": it is a file this server keeps for itself; no sandbox mode allows changing it (only the operator edits it)`

// A secret (a token file, a TLS key) is neither read nor changed by any
// tool, by any name (a hard link too), and the search tools skip it; a
// state directory protects what is below it; a config file is read but not
// changed. The policy is off: the refusal comes before any intent.
func TestProtectedFilesByKind(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{NoPolicy: true, ToolEditor: map[string]any{}})
	write(t, s, "token", "needle-secret\n")
	require.NoError(t, os.Link(filepath.Join(s.W, "token"), filepath.Join(s.W, "token-link")))
	write(t, s, "dsh.yaml", "plugins: []\n")
	write(t, s, "plain.txt", "needle\n")
	require.NoError(t, os.Mkdir(filepath.Join(s.W, "data"), 0o755))
	s.Protected.Add(fsapi.ProtectSecret, filepath.Join(s.W, "token"))
	s.Protected.Add(fsapi.ProtectConfig, filepath.Join(s.W, "dsh.yaml"))
	s.Protected.Add(fsapi.ProtectState, filepath.Join(s.W, "data"))
	conv := s.Conversation("kinds")

	for _, name := range []string{"token", "token-link"} {
		p := s.W + "/" + name
		for _, tc := range []struct{ tool, args, want string }{
			{"read", `{"file_path":"` + name + `"}`, `cannot read "` + p + keeps},
			{"str_replace_editor", `{"command":"view","path":"` + name + `"}`, `cannot read "` + p + keeps},
			{"write", `{"file_path":"` + name + `","content":"x"}`, `cannot write "` + p + keeps},
			{"edit", `{"file_path":"` + name + `","old_string":"needle","new_string":"x"}`, `cannot edit "` + p + keeps},
			{"grep", `{"pattern":"secret","path":"` + name + `"}`, `cannot read "` + p + keeps},
		} {
			res := s.Call(t.Context(), conv, tc.tool, tc.args)
			assert.Equal(t, "Error: "+tc.want, res.Text(), tc.args)
			assert.Equal(t, "FS_PROTECTED", res.Code(), tc.args)
		}
	}
	res := s.Call(t.Context(), conv, "grep", `{"pattern":"needle"}`)
	assert.Equal(t, "Found 1 match\n\nplain.txt\nLine 1: needle", res.Text(), "grep skips the secret and its hard link")
	res = s.Call(t.Context(), conv, "glob", `{"pattern":"token*"}`)
	assert.Equal(t, "No files found", res.Text(), "glob skips the secret, by its identity too")
	assert.Equal(t, "needle-secret\n", read(t, s, "token"))

	res = s.Call(t.Context(), conv, "write", `{"file_path":"data/new.db","content":"x"}`)
	assert.Equal(t, `Error: cannot write "`+s.W+`/data/new.db`+keeps, res.Text(), "below a state directory")
	assert.NoFileExists(t, filepath.Join(s.W, "data", "new.db"))

	res = s.Call(t.Context(), conv, "read", `{"file_path":"dsh.yaml"}`)
	assert.False(t, res.IsError, "a deployment file is read: %s", res.Text())
	res = s.Call(t.Context(), conv, "str_replace_editor", `{"command":"insert","path":"dsh.yaml","insert_line":0,"new_str":"x"}`)
	assert.Equal(t, `Error: cannot insert into "`+s.W+`/dsh.yaml": it is a deployment file of this server; no sandbox mode allows changing it (only the operator edits it)`, res.Text())
	assert.Equal(t, "plugins: []\n", read(t, s, "dsh.yaml"))
}
