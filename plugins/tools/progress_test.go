package tools

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestProgressIsThrottled: nothing in the first second, then at most one
// report every 250 ms; a call whose client asked for none reports nothing.
func TestProgressIsThrottled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []float64
		p := (&Exec{Report: func(done, _ float64, _ string) { got = append(got, done) }}).Progress()
		for i := range 40 { // one report every 50 ms for 2 s
			p.Report(float64(i), 0, "")
			time.Sleep(50 * time.Millisecond)
		}
		assert.Equal(t, []float64{20, 25, 30, 35}, got)
		var none *Exec
		none.Progress().Report(1, 2, "x") // no panic, nothing sent
		(&Exec{}).Progress().Report(1, 2, "x")
	})
}
