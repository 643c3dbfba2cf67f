package protectedpaths_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// TestToolCallsOnProtectedPaths runs the real tools: the guard refuses
// writes and edits of protected paths with its coded error, before
// fspolicy is asked, and every other call follows read-before-edit.
func TestToolCallsOnProtectedPaths(t *testing.T) {
	w := tempDir(t)
	writeFile(t, w, ".env", "TOKEN=1\n")
	writeFile(t, w, "notes.txt", "draft\n")
	require.NoError(t, os.Symlink(".env", filepath.Join(w, "env-link")))
	s := newStack(t, w, ".env")
	refused := func(op, p string) string {
		return `Error: cannot ` + op + ` "` + p + `": the path is protected by rule ".env"`
	}
	protectedInfo := &tools.ErrorInfo{Name: "ProtectedPathError", Code: "PATH_PROTECTED"}

	t.Run("an unread protected file is refused as protected, not as unread", func(t *testing.T) {
		res := s.call(t, "edit", map[string]any{"file_path": ".env", "old_string": "1", "new_string": "2"})
		assert.Equal(t, refused("edit", w+"/.env"), res.Text())
		require.NotNil(t, res.Error)
		assert.Equal(t, protectedInfo, res.Error.Info)
	})
	t.Run("reading a protected file is allowed and an edit after it is still refused", func(t *testing.T) {
		res := s.call(t, "read", map[string]any{"file_path": ".env"})
		require.False(t, res.IsError, res.Text())
		res = s.call(t, "edit", map[string]any{"file_path": ".env", "old_string": "1", "new_string": "2"})
		assert.Equal(t, refused("edit", w+"/.env"), res.Text())
		assert.Equal(t, "PATH_PROTECTED", res.Code())
	})
	t.Run("an overwrite is refused", func(t *testing.T) {
		res := s.call(t, "write", map[string]any{"file_path": ".env", "content": "TOKEN=3\n"})
		assert.Equal(t, refused("write", w+"/.env"), res.Text())
		assert.Equal(t, protectedInfo, res.Error.Info)
	})
	t.Run("an edit through a symlink is refused under the link's name", func(t *testing.T) {
		require.False(t, s.call(t, "read", map[string]any{"file_path": "env-link"}).IsError)
		res := s.call(t, "edit", map[string]any{"file_path": "env-link", "old_string": "1", "new_string": "2"})
		assert.Equal(t, refused("edit", w+"/env-link"), res.Text())
	})
	t.Run("the protected file is untouched", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(w, ".env"))
		require.NoError(t, err)
		assert.Equal(t, "TOKEN=1\n", string(data))
	})
	t.Run("an unread unprotected file still needs a read first", func(t *testing.T) {
		res := s.call(t, "edit", map[string]any{"file_path": "notes.txt", "old_string": "draft", "new_string": "final"})
		assert.Equal(t, `Error: edit requires reading "`+w+`/notes.txt" first — read the file, then retry`, res.Text())
		assert.Equal(t, "FS_NOT_OBSERVED", res.Code())
	})
	t.Run("a read unprotected file can be edited", func(t *testing.T) {
		require.False(t, s.call(t, "read", map[string]any{"file_path": "notes.txt"}).IsError)
		res := s.call(t, "edit", map[string]any{"file_path": "notes.txt", "old_string": "draft", "new_string": "final"})
		assert.Equal(t, "The file "+w+"/notes.txt has been updated successfully.", res.Text())
	})
	t.Run("a new unprotected file can be created", func(t *testing.T) {
		res := s.call(t, "write", map[string]any{"file_path": "new.txt", "content": "x"})
		assert.False(t, res.IsError, res.Text())
	})
}

// observer is an events.Actor with a conversation.
type observer string

func (o observer) Conversation() (string, bool) { return string(o), true }
func (o observer) SessionID() (string, bool)    { return o.Conversation() }
func (o observer) Principal() string            { return "test" }
func (o observer) ToolName() string             { return "read" }

// TestTheGuardReturnsThePolicysDecisionUnchanged: for a path no rule
// matches, the waterfall's result is exactly fspolicy's decision (contract
// §1.1: a guard is not a decider).
func TestTheGuardReturnsThePolicysDecisionUnchanged(t *testing.T) {
	w := tempDir(t)
	writeFile(t, w, "notes.txt", "n\n")
	s := newStack(t, w, "secret.txt")
	target, err := s.fs.Resolve(t.Context(), "notes.txt", fsapi.ResolveOptions{})
	require.NoError(t, err)
	require.NoError(t, events.FSObserved.Emit(t.Context(), s.h.Root(),
		events.Observation{Target: target, Kind: events.Present, Version: "v7", Actor: observer("s1")}))
	innerRan := false
	got, err := events.FSEditIntent.Waterfall(t.Context(), s.h.Root(), events.IntentRequest{Target: target, Actor: observer("s1")},
		func(context.Context) (*fsapi.EditGuard, error) { innerRan = true; return nil, nil })
	require.NoError(t, err)
	assert.Equal(t, &fsapi.EditGuard{Version: "v7"}, got)
	assert.False(t, innerRan, "fspolicy decided; the default continuation never ran")
}
