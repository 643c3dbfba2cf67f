package fslocal

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStagingNames(t *testing.T) {
	tests := []struct {
		name string
		base string
	}{
		{"a short name", "notes.txt"},
		{"a name of 255 bytes", strings.Repeat("n", 255)},
	}
	for _, tc := range tests {
		t.Run(tc.name+" gives a staging name within 255 bytes", func(t *testing.T) {
			prefix := stagingPrefix(tc.base)
			name := prefix + "0b1c1b2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b" + stagingSuffix
			assert.LessOrEqual(t, len(name), 255)
			assert.True(t, isStaging(name, prefix))
			assert.Equal(t, byte('.'), name[0])
		})
	}
	assert.False(t, isStaging(".notes.txt.not-a-uuid-at-all-but-36-chars-long!.dsh-tmp", ".notes.txt."))
	assert.False(t, isStaging(".notes.txt.0b1c1b2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b.tmp", ".notes.txt."))
}
