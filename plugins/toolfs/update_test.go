package toolfs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/toolfs"
)

// A change of toolfs's limits is taken in place (host.OnUpdate): the
// activation stays, the four tools are registered again with the new
// limits and descriptions, and the session's reads recorded by fspolicy are
// untouched.
func TestLimitsChangeInPlace(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	sess := s.Conversation("s1")
	ctx := context.Background()
	require.False(t, s.Call(ctx, sess, "read", `{"file_path":"a.txt"}`).IsError)
	scope := s.ToolFS.Scope()

	cfg := toolfs.DefaultConfig()
	cfg.ReadLimit, cfg.ListMaxEntries = 2, 7
	require.NoError(t, s.ToolFS.Update(ctx, cfg))
	assert.Same(t, scope, s.ToolFS.Scope(), "no restart")
	assert.Equal(t, cfg, s.ToolFS.Config())
	var names []string
	for _, tool := range s.Registry.Tools() {
		names = append(names, tool.Name)
		if tool.Name == "read" {
			assert.Contains(t, string(tool.Parameters), "Defaults to 2.")
		}
	}
	assert.Equal(t, []string{"move", "delete", "mkdir", "file_info", "glob", "grep", "list", "read", "write", "edit"}, names, "registered again, after the entry and search tools")

	res := s.Call(ctx, sess, "read", `{"file_path":"a.txt","limit":3}`)
	assert.Equal(t, "Error: limit must be less than or equal to 2", res.Text())
	res = s.Call(ctx, sess, "edit", `{"file_path":"a.txt","old_string":"two","new_string":"2"}`)
	assert.False(t, res.IsError, "the read before the change still allows the edit: %s", res.Text())
}
