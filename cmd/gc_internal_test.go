package cmd

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTuneGC: serve raises the GC target and sets the memory limit, except
// where the user set GOGC or GOMEMLIMIT.
func TestTuneGC(t *testing.T) {
	gc := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(gc); debug.SetMemoryLimit(limit) })
	unset := func(k string) {
		if v, ok := os.LookupEnv(k); ok {
			t.Cleanup(func() { os.Setenv(k, v) })
			os.Unsetenv(k)
		}
	}

	t.Run("the defaults", func(t *testing.T) {
		unset("GOGC")
		unset("GOMEMLIMIT")
		debug.SetGCPercent(100)
		tuneGC()
		assert.Equal(t, serveGCPercent, debug.SetGCPercent(100))
		assert.Equal(t, int64(serveMemoryLimit), debug.SetMemoryLimit(-1))
	})
	t.Run("the user's settings win", func(t *testing.T) {
		t.Setenv("GOGC", "150")
		t.Setenv("GOMEMLIMIT", "1GiB")
		debug.SetGCPercent(150)
		debug.SetMemoryLimit(1 << 30)
		tuneGC()
		assert.Equal(t, 150, debug.SetGCPercent(100))
		assert.Equal(t, int64(1<<30), debug.SetMemoryLimit(-1))
	})
}
