package fssandbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fssandbox"
)

// TestRemovalsAreGuardedAsWrites: fs/remove-intent is refused as a write
// is, worded "remove", for every type (a directory included), and passes
// next's result on unchanged where writes are allowed.
func TestRemovalsAreGuardedAsWrites(t *testing.T) {
	w := t.TempDir()
	inside := fsapi.Target{Key: w + "/a.txt", DisplayPath: w + "/a.txt"}
	outside := fsapi.Target{Key: "/elsewhere/a", DisplayPath: "/elsewhere/a"}
	dispatch := func(h *host.Host, tg fsapi.Target, typ fsapi.EntryType) (*fsapi.RemoveGuard, error) {
		return events.FSRemoveIntent.Waterfall(t.Context(), h.Root(), events.IntentRequest{Target: tg, Actor: actor{session: "s"}, Type: typ},
			func(context.Context) (*fsapi.RemoveGuard, error) { return &fsapi.RemoveGuard{Version: "v"}, nil })
	}
	h := host.New()
	defer h.Shutdown(context.Background())
	_, err := fsapi.Key.Provide(h.Root(), realFS{})
	require.NoError(t, err)
	inst := mount(t, h, fssandbox.Config{Mode: fssandbox.ReadOnly, Workspace: w})
	_, err = dispatch(h, inside, fsapi.TypeDirectory)
	var fe *fsapi.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, fsapi.CodeSandboxDenied, fe.Code)
	assert.Equal(t, `cannot remove "`+w+`/a.txt": the sandbox is in read-only mode — the sandbox mode is set by the operator; tell the user instead of retrying`, fe.Message)
	require.NoError(t, inst.Dispose(t.Context()))

	mount(t, h, fssandbox.Config{Mode: fssandbox.WorkspaceWrite, Workspace: w})
	g, err := dispatch(h, inside, fsapi.TypeFile)
	require.NoError(t, err)
	assert.Equal(t, &fsapi.RemoveGuard{Version: "v"}, g)
	_, err = dispatch(h, outside, fsapi.TypeSymlink)
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, `cannot remove "/elsewhere/a": the sandbox allows writes only under "`+w+`" — write under a writable root instead; the sandbox mode is set by the operator`, fe.Message)
}
