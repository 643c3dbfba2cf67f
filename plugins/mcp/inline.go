package mcp

import (
	"sync/atomic"
	"time"
)

// inlineGrace is how long a call runs on the reading goroutine before
// another goroutine takes the reading over (inlineWatch): between one and
// two of it, at the watch's ticks.
const inlineGrace = 5 * time.Millisecond

// inlineWatch hands the reading of a stdio connection over to another
// goroutine when a call that runs on the reader (directCalls.runInline)
// outlives inlineGrace, so that a cancellation or a further request is read
// while it runs. It has one timer for the connection, which ticks every
// inlineGrace while calls run inline and stops two ticks after the last
// one, instead of a timer per call: arming a timer from the thread that has
// just left the network poller makes the runtime wake another thread to
// poll for it, a futex wake-up on the path of every call (about 20 µs of a
// no-op call's 90 µs here, issue 10). A burst of calls now arms it once.
type inlineWatch struct {
	timer     *time.Timer
	armed     atomic.Bool
	current   atomic.Pointer[inlineRun] // the call running inline, if any
	started   atomic.Bool               // a call ran inline since the last tick
	done      <-chan struct{}           // the connection ended: the ticks stop
	handovers atomic.Int64              // inline calls that outlived inlineGrace
	ticks     atomic.Int64              // ticks so far
}

// inlineRun is one call running inline.
type inlineRun struct {
	start    time.Time
	claimed  atomic.Bool // the reading: by the reader again, or by takeOver
	takeOver func()
}

// newInlineWatch returns a watch whose ticks end with done.
func newInlineWatch(done <-chan struct{}) *inlineWatch {
	w := &inlineWatch{done: done}
	w.timer = time.AfterFunc(time.Hour, w.tick)
	w.timer.Stop()
	return w
}

// run runs job on the calling goroutine, the connection's reader, and
// reports whether that goroutine reads on: when job outlives inlineGrace,
// takeOver starts another reader and run returns false once job is done.
func (w *inlineWatch) run(job func(), takeOver func()) (readOn bool) {
	r := &inlineRun{start: time.Now(), takeOver: takeOver}
	w.current.Store(r)
	w.started.Store(true)
	if w.armed.CompareAndSwap(false, true) {
		w.timer.Reset(inlineGrace)
	}
	job()
	w.current.CompareAndSwap(r, nil)
	return r.claimed.CompareAndSwap(false, true)
}

// tick hands the reading over from a call that has run inline for
// inlineGrace, then ticks again while calls run inline.
func (w *inlineWatch) tick() {
	w.ticks.Add(1)
	if r := w.current.Load(); r != nil && time.Since(r.start) >= inlineGrace && r.claimed.CompareAndSwap(false, true) {
		w.handovers.Add(1)
		r.takeOver()
	}
	select {
	case <-w.done:
		return // armed stays set: nothing arms the timer again
	default:
	}
	if w.started.Swap(false) || w.current.Load() != nil {
		w.timer.Reset(inlineGrace)
		return
	}
	w.armed.Store(false)
	// A call that started after the checks above found the watch still
	// armed and armed nothing: arm it for that call.
	if w.current.Load() != nil && w.armed.CompareAndSwap(false, true) {
		w.timer.Reset(inlineGrace)
	}
}
