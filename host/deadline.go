package host

import (
	"context"
	"sync"
	"time"
)

// deadlineCtx is a context with a deadline whose timer is armed only once
// something waits for it: Done, or a context derived from it (which asks
// for Done, or for AfterFunc). Until then Err compares the clock with the
// deadline. It is what an apply gets for its load timeout (host §2.1) and an
// InlineEffect for its dispose timeout: almost none of them ever wait on
// their ctx, and each timer armed for them could wake a second thread of a
// one-shot `dshhost call` (docs/benchmarks.md, "Fifth stop").
//
// It behaves as context.WithDeadline(parent, deadline) would: Deadline is
// the earlier of the two; Err is the parent's error, context.Canceled after
// cancel, or context.DeadlineExceeded once the deadline has passed, whichever
// came first; Done is closed exactly when Err is not nil. Values are the
// parent's, except that a context that has ended answers as its armed
// form, so context.Cause agrees with Err.
type deadlineCtx struct {
	parent   context.Context
	deadline time.Time

	mu    sync.Mutex
	armed context.Context // nil until armed
	stop  context.CancelFunc
	ended ending // how it ended before it was armed
}

// ending is how a deadlineCtx that was never armed ended: by cancel, by its
// deadline passing before cancel, or by its parent ending before cancel.
type ending uint8

const (
	live ending = iota
	canceled
	expired
	parentEnded
)

// withLazyDeadline returns parent bounded by d from now, and the function
// that releases it (as context.WithTimeout's cancel).
func withLazyDeadline(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c := &deadlineCtx{parent: parent, deadline: time.Now().Add(d)}
	return c, c.cancel
}

// Deadline returns the earlier of the parent's deadline and c's.
func (c *deadlineCtx) Deadline() (time.Time, bool) {
	if d, ok := c.parent.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

// Done arms c and returns its channel.
func (c *deadlineCtx) Done() <-chan struct{} { return c.arm().Done() }

// AfterFunc arms c and arranges for f to run when it ends, as
// context.AfterFunc does; a context derived from c uses it instead of a
// goroutine that watches Done.
func (c *deadlineCtx) AfterFunc(f func()) func() bool { return context.AfterFunc(c.arm(), f) }

// Err reports why c ended, without arming it: the parent's end comes before
// the deadline when both have passed.
func (c *deadlineCtx) Err() error {
	c.mu.Lock()
	armed, ended := c.armed, c.ended
	c.mu.Unlock()
	switch {
	case armed != nil:
		return armed.Err()
	case ended == canceled:
		return context.Canceled
	case ended == expired:
		return context.DeadlineExceeded
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// Value returns the parent's value for key; once c has ended it asks the
// armed form, whose cancellation cause is c's.
func (c *deadlineCtx) Value(key any) any {
	if c.Err() != nil {
		return c.arm().Value(key)
	}
	return c.parent.Value(key)
}

// arm makes the real context once: a deadline context while c is live (its
// timer starts now; a deadline already past ends it at once, without one),
// or one that ended as c did.
func (c *deadlineCtx) arm() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.armed != nil {
		return c.armed
	}
	switch c.ended {
	case live, parentEnded:
		c.armed, c.stop = context.WithDeadline(c.parent, c.deadline)
	case expired:
		c.armed, c.stop = context.WithDeadline(context.WithoutCancel(c.parent), c.deadline)
	case canceled:
		c.armed, c.stop = context.WithCancel(context.WithoutCancel(c.parent))
		c.stop()
	}
	return c.armed
}

// cancel ends c (context.Canceled, unless its parent's end or its deadline
// came first) and stops its timer if it has one.
func (c *deadlineCtx) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.armed != nil:
		c.stop()
	case c.ended != live:
	case c.parent.Err() != nil:
		c.ended = parentEnded
	case !time.Now().Before(c.deadline):
		c.ended = expired
	default:
		c.ended = canceled
	}
}

// String names c for debugging, as the context package's own do.
func (c *deadlineCtx) String() string { return "host.withLazyDeadline(" + c.deadline.String() + ")" }
