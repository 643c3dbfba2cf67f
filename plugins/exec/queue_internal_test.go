package exec

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRestartsBackOffAndStayUnderFiveAMinute(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s starts
	s.record(t0) // the start at apply
	now := t0.Add(10 * time.Second)
	var waits []time.Duration
	for range 6 {
		d := s.next(now)
		waits = append(waits, d)
		now = now.Add(d)
		s.record(now)
		now = now.Add(time.Second) // each run lives a second
	}
	assert.Equal(t, []time.Duration{
		// starts at 10.25s, 11.75s, 13.75s, 16.75s: with the one at 0s,
		// five in the minute
		250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
		42250 * time.Millisecond, // at 17.75s: until the start at 0s is a minute old
	}, waits[:5])
	// Never more than 5 starts in any minute.
	for i := maxStarts; i < len(s.times); i++ {
		assert.GreaterOrEqual(t, s.times[i].Sub(s.times[i-maxStarts]), time.Minute)
	}
	var quiet starts
	quiet.record(t0)
	assert.Equal(t, 0*time.Second, quiet.next(t0.Add(time.Hour)), "a child that ran an hour restarts at once")
}
