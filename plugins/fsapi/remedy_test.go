package fsapi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestWithRemedy(t *testing.T) {
	stale := fsapi.ErrChanged("edit", "/w/a.txt")
	shaped := fsapi.WithRemedy(stale)
	assert.Equal(t, `cannot edit "/w/a.txt": file changed since it was read — re-read the file, then retry`, shaped.Error())
	var fe *fsapi.Error
	require.ErrorAs(t, shaped, &fe)
	assert.Equal(t, fsapi.CodeStaleVersion, fe.Code)
	assert.ErrorIs(t, shaped, stale, "the original is the cause")
	assert.Equal(t, shaped.Error(), fsapi.WithRemedy(shaped).Error(), "the suffix is added once")

	assert.Equal(t, `edit requires reading "/w/a.txt" first — read the file, then retry`, fsapi.WithRemedy(fsapi.ErrEditUnread("/w/a.txt")).Error())

	for _, err := range []error{
		nil,
		errors.New("uncoded"),
		fsapi.ErrNotFound("edit", "/w/a.txt", nil),
		fmt.Errorf("wrapped: %w", stale),
	} {
		assert.Equal(t, err, fsapi.WithRemedy(err), "%v passes through unchanged", err)
	}
}
