package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each call ends at its own deadline with errCallTimeout, in order, with
// the one timer re-armed between them; a removed call is never ended; an
// earlier deadline added later re-arms the timer earlier.
func TestDeadlinesEndEachCallAtItsTime(t *testing.T) {
	var d deadlines
	start := time.Now()
	call := func(after time.Duration) (context.Context, func()) {
		ctx, cancel := context.WithCancelCause(context.Background())
		return ctx, d.add(start.Add(after), cancel)
	}
	late, _ := call(400 * time.Millisecond)
	removed, remove := call(100 * time.Millisecond)
	early, _ := call(50 * time.Millisecond) // earlier than the armed 400 ms
	mid, _ := call(200 * time.Millisecond)
	remove()

	ended := func(ctx context.Context) time.Duration {
		select {
		case <-ctx.Done():
			return time.Since(start)
		case <-time.After(5 * time.Second):
			t.Fatal("a call outlived its deadline by 5 s")
			return 0
		}
	}
	for _, c := range []struct {
		ctx context.Context
		at  time.Duration
	}{{early, 50 * time.Millisecond}, {mid, 200 * time.Millisecond}, {late, 400 * time.Millisecond}} {
		got := ended(c.ctx)
		assert.GreaterOrEqual(t, got, c.at, "ended before its deadline")
		assert.Equal(t, errCallTimeout, context.Cause(c.ctx))
	}
	assert.NoError(t, removed.Err(), "a removed call was ended")

	// Nothing is left: the timer is not armed, and the next call arms it.
	d.mu.Lock()
	assert.True(t, d.at.IsZero())
	assert.Empty(t, d.calls)
	d.mu.Unlock()
	again, _ := call(time.Since(start) + 20*time.Millisecond)
	ended(again)
	require.Equal(t, errCallTimeout, context.Cause(again))
}
