package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dsh-go/dsh/plugins/tools"
)

// callLimits bounds and drains the server's tool calls: at most max run at
// once (the rest wait; one whose context ends while it waits is handed to
// the registry cancelled, which answers `tool call aborted before
// dispatch`, contract §5.2 step 2); each runs under the call timeout; the
// drain waits for the calls in flight (and the HTTP requests, which it
// refuses from then on), then cancels them.
type callLimits struct {
	// limit holds the current slots and timeout; a config change swaps it
	// in place (setLimits), and a call keeps the one it started under.
	limit atomic.Pointer[limit]

	stop   context.Context // cancelled when draining gives up: every call's context ends
	cancel context.CancelFunc

	running  tracker // calls admitted and not yet answered
	requests tracker // HTTP POSTs being served (their answers are written before they end)
}

// newCallLimits returns the limits; a value ≤ 0 takes its default.
func newCallLimits(max int, timeout time.Duration) *callLimits {
	stop, cancel := context.WithCancel(context.Background())
	c := &callLimits{stop: stop, cancel: cancel}
	c.setLimits(max, timeout)
	return c
}

// limit is one generation of the call limits: slots has capacity max.
type limit struct {
	slots   chan struct{}
	timeout time.Duration
}

// setLimits applies new limits to the calls that start from now on (a
// value ≤ 0 takes its default); calls already admitted keep the slots and
// timeout they started under, so for a while up to old+new max may run.
func (c *callLimits) setLimits(max int, timeout time.Duration) {
	if max <= 0 {
		max = DefaultMaxInFlight
	}
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	if cur := c.limit.Load(); cur != nil && cap(cur.slots) == max && cur.timeout == timeout {
		return
	}
	c.limit.Store(&limit{slots: make(chan struct{}, max), timeout: timeout})
}

// The defaults of the call limits (issue 12): at most 64 tool calls run at
// once, each for at most 5 minutes.
const (
	DefaultMaxInFlight = 64
	DefaultCallTimeout = 5 * time.Minute
)

// errCallTimeout is the cause of a call context that hit the call timeout.
var errCallTimeout = errors.New("tool call timed out")

// abortGrace is how long an answer waits, once the call's context ended,
// for a body that ignores its context before answering without it. The
// body keeps its slot until it returns.
const abortGrace = time.Second

// runThen runs body, the registry call, under the limits on the calling
// goroutine and gives answer one result, exactly once: body's, or the
// timeout result as soon as the call timeout passes, or the aborted result
// when the context ended otherwise and body did not return within
// abortGrace. runThen returns once body has returned (or at once when body
// never ran); the answer may come before that, from another goroutine.
// The call counts as running until it is answered; body keeps its slot
// until it returns, and no longer: answer may block on a client that does
// not read, and the calls queued for a slot must not wait for it.
func (c *callLimits) runThen(ctx context.Context, body func(ctx context.Context) tools.Result, answer func(tools.Result)) {
	c.running.add() // the transports stop accepting; a call they accepted runs
	var once sync.Once
	give := func(res tools.Result) {
		once.Do(func() {
			answer(res)
			c.running.end()
		})
	}
	l := c.limit.Load()
	ctx, cancel := context.WithTimeoutCause(ctx, l.timeout, errCallTimeout)
	defer cancel()
	defer context.AfterFunc(c.stop, cancel)()

	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		if context.Cause(ctx) == errCallTimeout {
			give(timedOut(l.timeout))
			return
		}
		give(body(ctx)) // the registry answers: aborted before dispatch
		return
	}
	held := true
	release := func() {
		if held {
			held = false
			<-l.slots
		}
	}
	defer release()
	stop := context.AfterFunc(ctx, func() {
		if context.Cause(ctx) == errCallTimeout {
			give(timedOut(l.timeout))
			return
		}
		time.AfterFunc(abortGrace, func() { give(failure("tool call aborted", "AbortError", "ABORTED")) })
	})
	res := body(ctx) // the registry recovers a body's panic
	stop()
	release()
	if res.IsError && context.Cause(ctx) == errCallTimeout {
		res = timedOut(l.timeout)
	}
	give(res)
}

// timedOut is the result of a call that ran out of time d.
func timedOut(d time.Duration) tools.Result {
	return failure(fmt.Sprintf("tool call timed out after %d ms", d.Milliseconds()), "TimeoutError", "TIMEOUT")
}

// failure is a coded error result.
func failure(message, name, code string) tools.Result {
	return tools.Result{IsError: true, Content: []tools.Block{tools.TextBlock("Error: " + message)},
		Error: &tools.Failure{Message: message, Info: &tools.ErrorInfo{Name: name, Code: code}}}
}

// tracker counts work in progress and refuses new work once draining.
type tracker struct {
	mu       sync.Mutex
	n        int
	idle     chan struct{} // closed when n drops to 0; nil while n is 0
	draining bool
}

// begin admits one unit of work unless draining.
func (t *tracker) begin() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.draining {
		return false
	}
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.n++
	return true
}

// add counts one unit of work, draining or not.
func (t *tracker) add() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.n++
}

func (t *tracker) end() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n--
	if t.n == 0 {
		close(t.idle)
		t.idle = nil
	}
}

// isDraining reports whether new work is refused.
func (t *tracker) isDraining() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.draining
}

// startDrain refuses new work and returns a channel closed once none is
// left.
func (t *tracker) startDrain() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.draining = true
	if t.idle == nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return t.idle
}

// cancelGrace is how long the drain waits, once it cancelled the calls
// left, for their aborted results to be answered: a call answers at most
// abortGrace after its context ended.
const cancelGrace = abortGrace + time.Second

// drain refuses new HTTP requests, waits up to timeout (or ctx)
// for those in flight to be answered, then cancels the contexts of the
// calls left and waits up to cancelGrace for their aborted results to be
// answered too (a request read before shutdown gets a reply). It reports
// whether everything was answered within timeout.
func (c *callLimits) drain(ctx context.Context, timeout time.Duration) bool {
	requests, running := c.requests.startDrain(), c.running.startDrain()
	t := time.NewTimer(timeout)
	defer t.Stop()
	for _, idle := range []<-chan struct{}{requests, running} {
		select {
		case <-idle:
			continue
		case <-t.C:
		case <-ctx.Done():
		}
		c.cancel()
		grace := time.NewTimer(cancelGrace)
		defer grace.Stop()
		for _, idle := range []<-chan struct{}{running, requests} {
			select {
			case <-idle:
			case <-grace.C:
				return false
			}
		}
		return false
	}
	return true
}
