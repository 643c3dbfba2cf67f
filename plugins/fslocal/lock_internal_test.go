package fslocal

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waiting returns how many calls wait for key (test view of the queue).
func (l *lockTable) waiting(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if q := l.m[key]; q != nil {
		return len(q.waiters)
	}
	return -1
}

// eventually polls cond for up to 5 s.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	require.Eventually(t, cond, 5*time.Second, time.Millisecond, what)
}

func TestLockTableGrantsInArrivalOrder(t *testing.T) {
	var l lockTable
	release, err := l.acquire(context.Background(), "k")
	require.NoError(t, err)
	assert.Equal(t, 1, l.count())

	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	cancels := make([]context.CancelFunc, 10)
	aborted := make(chan int, 10)
	for i := range 10 {
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := l.acquire(ctx, "k")
			if err != nil {
				aborted <- i
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			r()
		}()
		eventually(t, func() bool { return l.waiting("k") == i+1 }, "waiter enqueued")
	}
	// Cancelling waiters 3 and 7 removes them and nobody else.
	cancels[3]()
	cancels[7]()
	assert.ElementsMatch(t, []int{3, 7}, []int{<-aborted, <-aborted})
	assert.Equal(t, 8, l.waiting("k"))
	assert.Equal(t, 1, l.count(), "one entry per key, however many wait")

	release()
	wg.Wait()
	assert.Equal(t, []int{0, 1, 2, 4, 5, 6, 8, 9}, order)
	assert.Zero(t, l.count(), "the table is empty once every call returned")
	for _, c := range cancels {
		c()
	}
}

func TestLockTableKeysAreIndependent(t *testing.T) {
	var l lockTable
	ra, err := l.acquire(context.Background(), "a")
	require.NoError(t, err)
	rb, err := l.acquire(context.Background(), "b")
	require.NoError(t, err, "another key is not blocked")
	assert.Equal(t, 2, l.count())
	ra()
	rb()
	assert.Zero(t, l.count())
}

func TestLockTableCancellationRacingAGrantPassesTheLockOn(t *testing.T) {
	var l lockTable
	for range 500 {
		release, err := l.acquire(context.Background(), "k")
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		first := make(chan error, 1)
		go func() {
			r, err := l.acquire(ctx, "k")
			if err == nil {
				r()
			}
			first <- err
		}()
		eventually(t, func() bool { return l.waiting("k") == 1 }, "first waiter enqueued")
		second := make(chan error, 1)
		go func() {
			r, err := l.acquire(context.Background(), "k")
			if err == nil {
				r()
			}
			second <- err
		}()
		eventually(t, func() bool { return l.waiting("k") == 2 }, "second waiter enqueued")
		// Cancel the first waiter and release at the same moment.
		go cancel()
		release()
		<-first // granted or aborted: either way it must not keep the lock
		require.NoError(t, <-second, "the next waiter always gets the lock")
		require.Zero(t, l.count())
	}
}
