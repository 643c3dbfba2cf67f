package mcp

import (
	"context"
	"sync"
	"time"
)

// deadlines ends calls at their call timeout with one timer for all of
// them, armed at the earliest deadline, instead of a timer per call
// (context.WithTimeout): arming a timer from the thread that has just left
// the network poller makes the runtime wake another thread to poll for it,
// a futex wake-up on the path of every call (issue 10). With one timeout
// for all calls a new call's deadline is never earlier than the armed one,
// so a call adds itself to a set and arms nothing; the timer fires at the
// earliest deadline, ends the calls due, and re-arms at the earliest left.
type deadlines struct {
	mu    sync.Mutex
	timer *time.Timer
	at    time.Time // when timer fires; zero when it is not armed
	calls map[*deadline]struct{}
}

// deadline is one call's: its time and the cancel of its context.
type deadline struct {
	at     time.Time
	cancel context.CancelCauseFunc
}

// add calls cancel(errCallTimeout) at the time at, unless the returned
// remove runs first.
func (d *deadlines) add(at time.Time, cancel context.CancelCauseFunc) (remove func()) {
	e := &deadline{at: at, cancel: cancel}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.calls == nil {
		d.calls = map[*deadline]struct{}{}
		d.timer = time.AfterFunc(time.Hour, d.fire)
		d.timer.Stop()
	}
	d.calls[e] = struct{}{}
	if d.at.IsZero() || at.Before(d.at) {
		d.at = at
		d.timer.Reset(time.Until(at))
	}
	return func() {
		d.mu.Lock()
		delete(d.calls, e)
		d.mu.Unlock()
	}
}

// fire ends the calls that are due and re-arms the timer at the earliest
// deadline left; with none left it stays unarmed until the next add.
func (d *deadlines) fire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	var next time.Time
	for e := range d.calls {
		if !e.at.After(now) {
			delete(d.calls, e)
			e.cancel(errCallTimeout)
			continue
		}
		if next.IsZero() || e.at.Before(next) {
			next = e.at
		}
	}
	d.at = next
	if !next.IsZero() {
		d.timer.Reset(next.Sub(now))
	}
}
