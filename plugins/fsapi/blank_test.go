package fsapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestIsBlank(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"the empty string is blank", "", true},
		{"ASCII whitespace is blank", " \t\n\v\f\r", true},
		{"the Unicode spaces of the JavaScript set are blank", "\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff", true},
		{"U+0085 is not blank", "\u0085", false},
		{"U+200B zero width space is not blank", "\u200b", false},
		{"a letter among spaces is not blank", "  a  ", false},
		{"an invalid byte is not blank", "\xff", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, fsapi.IsBlank(tc.in))
		})
	}
}
