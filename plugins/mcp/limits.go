package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
	slots   chan struct{}
	timeout time.Duration

	stop   context.Context // cancelled when draining gives up: every call's context ends
	cancel context.CancelFunc

	running  tracker // calls admitted and not yet answered
	requests tracker // HTTP POSTs being served (their answers are written before they end)
}

// newCallLimits returns the limits; a value ≤ 0 takes its default.
func newCallLimits(max int, timeout time.Duration) *callLimits {
	if max <= 0 {
		max = DefaultMaxInFlight
	}
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	stop, cancel := context.WithCancel(context.Background())
	return &callLimits{slots: make(chan struct{}, max), timeout: timeout, stop: stop, cancel: cancel}
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

// run runs body, the registry call, under the limits and returns its
// result, or the timeout / aborted result when the call's context ended
// first.
func (c *callLimits) run(ctx context.Context, body func(ctx context.Context) tools.Result) tools.Result {
	c.running.add() // the transports stop accepting; a call they accepted runs
	defer c.running.end()
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errCallTimeout)
	defer cancel()
	defer context.AfterFunc(c.stop, cancel)()

	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		if context.Cause(ctx) == errCallTimeout {
			return timedOut(c.timeout)
		}
		return body(ctx) // the registry answers: aborted before dispatch
	}
	done := make(chan tools.Result, 1)
	go func() {
		res := body(ctx) // the registry recovers a body's panic
		<-c.slots
		done <- res
	}()
	select {
	case res := <-done:
		if res.IsError && context.Cause(ctx) == errCallTimeout {
			return timedOut(c.timeout)
		}
		return res
	case <-ctx.Done():
	}
	if context.Cause(ctx) == errCallTimeout {
		return timedOut(c.timeout)
	}
	select {
	case res := <-done:
		return res
	case <-time.After(abortGrace):
		return failure("tool call aborted", "AbortError", "ABORTED")
	}
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

// drain refuses new HTTP requests, waits up to timeout (or ctx)
// for those in flight to be answered, then cancels the contexts of the
// calls left. It reports whether everything was answered in time.
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
		return false
	}
	return true
}
