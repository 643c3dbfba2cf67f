package fsapi_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// listing has ListDir (sorted, with metadata) and, as lister, ListEntries.
type listing struct{ core }

func (listing) ListDir(context.Context, fsapi.Target) ([]fsapi.DirEntry, error) {
	return []fsapi.DirEntry{{Name: "a", Version: "v"}, {Name: "b", Version: "v"}}, nil
}

type lister struct {
	listing
	got fsapi.ListOptions
}

func (l *lister) ListEntries(_ context.Context, _ fsapi.Target, opts fsapi.ListOptions) ([]fsapi.DirEntry, error) {
	l.got = opts
	return []fsapi.DirEntry{{Name: "b"}, {Name: "a"}}, nil
}

func TestListEntriesUsesTheCapabilityWhenPresent(t *testing.T) {
	l := &lister{}
	got, err := fsapi.ListEntries(t.Context(), l, fsapi.Target{}, fsapi.ListOptions{Metadata: true})
	require.NoError(t, err)
	assert.Equal(t, []fsapi.DirEntry{{Name: "b"}, {Name: "a"}}, got)
	assert.True(t, l.got.Metadata, "the options reach the provider")
}

func TestListEntriesFallsBackToListDir(t *testing.T) {
	got, err := fsapi.ListEntries(t.Context(), listing{}, fsapi.Target{}, fsapi.ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []fsapi.DirEntry{{Name: "a", Version: "v"}, {Name: "b", Version: "v"}}, got)
}
