package wire_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/events/wire"
)

func TestCheckKeysReportsEachAtItsPath(t *testing.T) {
	var got []string
	add := func(path, problem string) { got = append(got, path+": "+problem) }
	wire.CheckKeys(2*time.Second, wire.Block, 1000, 1<<20, add)
	assert.Empty(t, got, "the defaults are fine")
	wire.CheckKeys(0, "maybe", 0, -1, add)
	assert.Equal(t, []string{
		"timeout: must be a positive duration, e.g. 2s",
		`onFailure: must be block or allow, not "maybe"`,
		"queue: must be a positive integer",
		"maxArgumentBytes: must be a positive integer",
	}, got)
}
