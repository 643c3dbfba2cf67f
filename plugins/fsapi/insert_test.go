package fsapi_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestInsertAndMatchErrors(t *testing.T) {
	err := fsapi.ErrLineOutOfRange("/w/a\xff.txt", 4, 3)
	assert.Equal(t, "cannot insert into \"/w/a\uFFFD.txt\": line 4 is out of range (3 lines)", err.Error(), "editor.md §2.3; never singular, [D11] in the path")
	assert.Equal(t, fsapi.CodeNotFound, err.Code)
	var lr *fsapi.LineRangeError
	require.True(t, errors.As(err, &lr))
	assert.Equal(t, fsapi.LineRangeError{Line: 4, Lines: 3}, *lr)
	assert.Equal(t, "line 1 is out of range (1 lines)", (&fsapi.LineRangeError{Line: 1, Lines: 1}).Error())

	amb := fsapi.ErrAmbiguousEditAt(&fsapi.MatchLines{Count: 2, Lines: []int{1, 3}}, "/w/a.txt")
	assert.Equal(t, fsapi.ErrAmbiguousEdit(2, "/w/a.txt").Error(), amb.Error(), "the message is unchanged (editor.md §2.2)")
	assert.Equal(t, fsapi.CodeAmbiguousEdit, amb.Code)
	var ml *fsapi.MatchLines
	require.True(t, errors.As(amb, &ml))
	assert.Equal(t, []int{1, 3}, ml.Lines)
}
