package wire_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/events/wire"
)

func TestTheQueueDropsTheOldestAndCounts(t *testing.T) {
	q := wire.NewQueue[int](3)
	for i := range 5 {
		q.Push(i)
	}
	assert.Equal(t, uint64(2), q.Dropped())
	assert.Equal(t, 3, q.Len())
	assert.Equal(t, []int{2, 3, 4}, q.Take(), "the newest three, oldest first")
	assert.Empty(t, q.Take())
	q.Push(9)
	assert.Equal(t, []int{9}, q.Take())
	assert.Equal(t, uint64(2), q.Dropped())
	select {
	case <-q.Ready():
	default:
		t.Error("a push signals the reader")
	}
}

func TestPopTakesTheOldestOneAtATime(t *testing.T) {
	q := wire.NewQueue[string](2)
	_, ok := q.Pop()
	assert.False(t, ok, "an empty queue")
	q.Push("a")
	q.Push("b")
	q.Push("c") // drops a
	x, ok := q.Pop()
	assert.True(t, ok)
	assert.Equal(t, "b", x)
	q.Push("d") // the ring wraps
	assert.Equal(t, []string{"c", "d"}, q.Take())
}

func TestDropsAreReportedAtMostOnceAMinute(t *testing.T) {
	q := wire.NewQueue[int](1)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, _, ok := q.DropsToReport(t0, true)
	assert.False(t, ok, "nothing dropped, nothing to say")
	q.Push(1)
	q.Push(2)
	n, total, ok := q.DropsToReport(t0, false)
	assert.Equal(t, []any{uint64(1), uint64(1), true}, []any{n, total, ok}, "the first drop is reported at once")
	q.Push(3)
	q.Push(4)
	_, total, ok = q.DropsToReport(t0.Add(59*time.Second), false)
	assert.Equal(t, []any{uint64(3), false}, []any{total, ok}, "not within the minute")
	n, total, ok = q.DropsToReport(t0.Add(time.Minute), false)
	assert.Equal(t, []any{uint64(2), uint64(3), true}, []any{n, total, ok}, "a minute later: the two since")
	q.Discard() // the reader dropped one it took
	n, _, ok = q.DropsToReport(t0.Add(time.Minute+time.Second), true)
	assert.Equal(t, []any{uint64(1), true}, []any{n, ok}, "the final report says the rest")
}

func TestResizeKeepsTheNewestAndCountsTheRest(t *testing.T) {
	q := wire.NewQueue[int](4)
	for i := range 4 {
		q.Push(i)
	}
	assert.Equal(t, 0, q.Resize(4))
	assert.Equal(t, 2, q.Resize(2))
	assert.Equal(t, uint64(2), q.Dropped())
	q.Push(4) // full at 2: drops 2
	assert.Equal(t, []int{3, 4}, q.Take())
	assert.Equal(t, uint64(3), q.Dropped())
	q.Push(5)
	assert.Equal(t, 0, q.Resize(8), "growing drops nothing")
	for i := 6; i < 13; i++ {
		q.Push(i)
	}
	assert.Equal(t, []int{5, 6, 7, 8, 9, 10, 11, 12}, q.Take())
	assert.Equal(t, uint64(3), q.Dropped())
}
