package fspolicy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

func removeIntent(t *testing.T, h *host.Host, a events.Actor, typ fsapi.EntryType) (*fsapi.RemoveGuard, error) {
	t.Helper()
	return events.FSRemoveIntent.Waterfall(t.Context(), h.Root(), events.IntentRequest{Target: target, Actor: a, Type: typ},
		func(context.Context) (*fsapi.RemoveGuard, error) {
			return nil, errors.New("the default continuation ran")
		})
}

// TestRemoveIsDecidedAsAnEdit: a file needs the current version read (or
// written) by the same conversation; a directory, a link or a special file
// needs no read. The policy decides, so the default continuation never
// runs.
func TestRemoveIsDecidedAsAnEdit(t *testing.T) {
	s1, s2, none := actor{session: "s1"}, actor{session: "s2"}, actor{}
	h := host.New()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	mountPolicy(t, h)

	var fe *fsapi.Error
	_, err := removeIntent(t, h, s1, fsapi.TypeFile)
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, fsapi.CodeNotObserved, fe.Code)
	assert.Equal(t, `remove requires reading "/w/a.txt" first`, fe.Message)

	for _, typ := range []fsapi.EntryType{fsapi.TypeDirectory, fsapi.TypeSymlink, fsapi.TypeOther} {
		g, err := removeIntent(t, h, none, typ)
		require.NoError(t, err, typ)
		assert.Nil(t, g, typ)
	}

	observe(t, h, s1, events.Present, "v1")
	g, err := removeIntent(t, h, s1, fsapi.TypeFile)
	require.NoError(t, err)
	assert.Equal(t, &fsapi.RemoveGuard{Version: "v1"}, g)

	_, err = removeIntent(t, h, s2, fsapi.TypeFile)
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, fsapi.CodeNotObserved, fe.Code, "another conversation's read authorises nothing")

	observe(t, h, s1, events.Absent, "")
	_, err = removeIntent(t, h, s1, fsapi.TypeFile)
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, fsapi.CodeNotFound, fe.Code)
	assert.Equal(t, `cannot remove "/w/a.txt": not found`, fe.Message)
}
