package mcp

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A short call reads on and hands nothing over; a call that outlives
// inlineGrace hands the reading over once and does not read on; once calls
// stop, the watch stops ticking, and the next call arms it again.
func TestInlineWatchHandsOverOnlyLongCalls(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	w := newInlineWatch(done)
	var takeOvers atomic.Int32
	takeOver := func() { takeOvers.Add(1) }

	assert.True(t, w.run(func() {}, takeOver))
	assert.Equal(t, int32(0), takeOvers.Load())

	assert.False(t, w.run(func() { time.Sleep(10 * inlineGrace) }, takeOver))
	assert.Equal(t, int32(1), takeOvers.Load())
	assert.Equal(t, int64(1), w.handovers.Load())

	assert.Eventually(t, func() bool { return !w.armed.Load() }, 5*time.Second, inlineGrace, "the watch ticks on with no call")

	assert.False(t, w.run(func() { time.Sleep(10 * inlineGrace) }, takeOver))
	assert.Equal(t, int32(2), takeOvers.Load())
	assert.True(t, w.run(func() {}, takeOver))
	assert.Equal(t, int32(2), takeOvers.Load())
}

// Once the connection ended the watch stops ticking.
func TestInlineWatchStopsWithTheConnection(t *testing.T) {
	done := make(chan struct{})
	w := newInlineWatch(done)
	assert.True(t, w.run(func() {}, func() {}))
	close(done)
	ticks := func() int64 { return w.ticks.Load() }
	time.Sleep(5 * inlineGrace)
	n := ticks()
	time.Sleep(20 * inlineGrace)
	assert.Equal(t, n, ticks(), "ticks after the connection ended")
}
