package host

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// armed reports whether c has made its real context (and so its timer).
func armed(c context.Context) bool {
	d := c.(*deadlineCtx)
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.armed != nil
}

type valueKey struct{}

// A deadlineCtx that nothing waits on answers Deadline, Err and Value
// without a timer, and ends at its deadline all the same.
func TestLazyDeadlineArmsNothingUntilWaitedOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		parent := context.WithValue(t.Context(), valueKey{}, "v")
		start := time.Now()
		ctx, cancel := withLazyDeadline(parent, time.Minute)
		defer cancel()
		d, ok := ctx.Deadline()
		assert.True(t, ok)
		assert.Equal(t, start.Add(time.Minute), d)
		assert.NoError(t, ctx.Err())
		assert.Equal(t, "v", ctx.Value(valueKey{}))
		assert.False(t, armed(ctx), "Deadline, Err and Value arm nothing")

		time.Sleep(time.Minute)
		assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded, "past the deadline without a timer")
		assert.False(t, armed(ctx))
		select {
		case <-ctx.Done():
		default:
			t.Fatal("Done of an expired context is closed at once")
		}
		assert.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded)
		assert.Equal(t, "v", ctx.Value(valueKey{}))
	})
}

// Waiting on Done arms the timer, which closes it at the deadline, as
// context.WithDeadline would.
func TestLazyDeadlineDoneClosesAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ctx, cancel := withLazyDeadline(t.Context(), time.Second)
		defer cancel()
		<-ctx.Done()
		assert.Equal(t, time.Second, time.Since(start))
		assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
		assert.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded)
	})
}

// cancel ends it with Canceled, armed or not; a cancel that comes after the
// deadline passed, or after the parent ended, keeps what came first.
func TestLazyDeadlineCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, waited := range []bool{false, true} {
			ctx, cancel := withLazyDeadline(t.Context(), time.Minute)
			if waited {
				_ = ctx.Done()
			}
			cancel()
			assert.ErrorIs(t, ctx.Err(), context.Canceled, "waited %t", waited)
			<-ctx.Done()
			assert.ErrorIs(t, context.Cause(ctx), context.Canceled)
			cancel() // idempotent
			assert.ErrorIs(t, ctx.Err(), context.Canceled)
		}

		late, cancel := withLazyDeadline(t.Context(), time.Second)
		time.Sleep(2 * time.Second)
		cancel()
		assert.ErrorIs(t, late.Err(), context.DeadlineExceeded)
		<-late.Done()
		assert.ErrorIs(t, late.Err(), context.DeadlineExceeded)

		parent, stopParent := context.WithCancelCause(t.Context())
		byParent, cancel := withLazyDeadline(parent, time.Minute)
		stopParent(assert.AnError)
		cancel()
		assert.ErrorIs(t, byParent.Err(), context.Canceled, "the parent's error")
		<-byParent.Done()
		assert.ErrorIs(t, context.Cause(byParent), assert.AnError)

		parent2, stopParent2 := context.WithCancel(t.Context())
		first, cancel := withLazyDeadline(parent2, time.Minute)
		cancel()
		stopParent2()
		<-first.Done()
		assert.ErrorIs(t, context.Cause(first), context.Canceled)
	})
}

// The parent's end reaches it, armed or not, and an earlier parent deadline
// is its deadline.
func TestLazyDeadlineFollowsItsParent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		parent, stop := context.WithCancel(t.Context())
		ctx, cancel := withLazyDeadline(parent, time.Minute)
		defer cancel()
		stop()
		assert.ErrorIs(t, ctx.Err(), context.Canceled)
		<-ctx.Done()

		short, stopShort := context.WithTimeout(t.Context(), time.Second)
		defer stopShort()
		ctx, cancel = withLazyDeadline(short, time.Minute)
		defer cancel()
		d, _ := ctx.Deadline()
		want, _ := short.Deadline()
		assert.Equal(t, want, d)
		<-ctx.Done()
		assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	})
}

// A context derived from it ends with it, through AfterFunc: no goroutine
// watches it.
func TestLazyDeadlineChildren(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := withLazyDeadline(t.Context(), time.Second)
		defer cancel()
		before := runtime.NumGoroutine()
		child, stopChild := context.WithCancel(ctx)
		defer stopChild()
		assert.Equal(t, before, runtime.NumGoroutine(), "no goroutine watches the parent")
		require.True(t, armed(ctx), "deriving a context waits on it")
		start := time.Now()
		<-child.Done()
		assert.Equal(t, time.Second, time.Since(start))
		assert.ErrorIs(t, child.Err(), context.DeadlineExceeded)

		ran := make(chan struct{})
		ctx2, cancel2 := withLazyDeadline(t.Context(), time.Minute)
		context.AfterFunc(ctx2, func() { close(ran) })
		cancel2()
		<-ran
	})
}

// Its methods may race each other and cancel (go test -race).
func TestLazyDeadlineIsSafeForConcurrentUse(t *testing.T) {
	for range 50 {
		ctx, cancel := withLazyDeadline(context.Background(), time.Millisecond)
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				switch i {
				case 0:
					<-ctx.Done()
				case 1:
					for ctx.Err() == nil {
						time.Sleep(10 * time.Microsecond)
					}
				case 2:
					_ = ctx.Value(valueKey{})
					_, _ = ctx.Deadline()
				case 3:
					cancel()
				}
			})
		}
		wg.Wait()
		assert.Error(t, ctx.Err())
	}
}
