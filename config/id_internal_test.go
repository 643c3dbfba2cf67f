package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidID(t *testing.T) {
	for _, id := range []string{"fslocal", "fs-2", "A_b9", "-", "_"} {
		assert.True(t, validID(id), id)
	}
	for _, id := range []string{"", "a.b", "a b", "é", "a/b", "x\n", "a=b"} {
		assert.False(t, validID(id), "%q", id)
	}
}
