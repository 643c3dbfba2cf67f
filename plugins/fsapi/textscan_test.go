package fsapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// A TextRest counted chunk by chunk describes the whole rest: its bytes,
// its LF bytes, and whether it ends without LF.
func TestTextRestCounts(t *testing.T) {
	var r fsapi.TextRest
	r.Count(nil)
	assert.Equal(t, fsapi.TextRest{}, r, "nothing counted is the empty rest")
	r.Count([]byte("a\nb"))
	assert.Equal(t, fsapi.TextRest{Bytes: 3, Newlines: 1, Unterminated: true}, r)
	r.Count([]byte("\r\n\n"))
	assert.Equal(t, fsapi.TextRest{Bytes: 6, Newlines: 3, Unterminated: false}, r)
	r.Count([]byte{})
	assert.False(t, r.Unterminated, "an empty chunk changes nothing")
}
