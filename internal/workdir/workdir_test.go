package workdir_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/internal/workdir"
)

func TestHasDotDot(t *testing.T) {
	for s, want := range map[string]bool{
		"..": true, "../a": true, "a/..": true, "a/../b": true, `a\..\b`: true,
		"a..b": false, "...": false, "a/...": false, "..a": false, "a/b": false, "": false,
	} {
		assert.Equal(t, want, workdir.HasDotDot(s), "%q", s)
	}
}
