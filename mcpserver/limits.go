package mcpserver

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/dsh-go/dsh/plugins/tools"
)

// The defaults of the call limits (issue 12): at most 64 tool calls run at
// once, each for at most 5 minutes.
const (
	DefaultMaxInFlight = 64
	DefaultCallTimeout = 5 * time.Minute
)

// errCallTimeout is the cause of a call's context when its timeout passed.
var errCallTimeout = errors.New("tool call timed out")

// callLimits bounds the calls of one server: a cap on the calls in flight
// (the rest wait for a slot, in no particular order) and a per-call timeout.
type callLimits struct {
	slots   chan struct{}
	timeout time.Duration
}

// newCallLimits returns the limits; a value ≤ 0 takes its default.
func newCallLimits(maxInFlight int, timeout time.Duration) *callLimits {
	if maxInFlight <= 0 {
		maxInFlight = DefaultMaxInFlight
	}
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	return &callLimits{slots: make(chan struct{}, maxInFlight), timeout: timeout}
}

// run runs exec in a slot, under the timeout.
//
//   - A call whose ctx ends while it waits for a slot runs with that ctx
//     without a slot: the registry answers it `tool call aborted before
//     dispatch` and runs nothing (contract §5.2 step 2).
//   - When the timeout passes, the call's context is cancelled and, however
//     the body ended, the result is `Error: tool call timed out after <n> ms`
//     with info {TimeoutError, TIMEOUT}; as with any cancellation after the
//     body started, a write may already be on disk (contract §5.2 step 9).
func (l *callLimits) run(ctx context.Context, exec func(context.Context) tools.Result) tools.Result {
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return exec(ctx)
	}
	defer func() { <-l.slots }()
	tctx, cancel := context.WithTimeoutCause(ctx, l.timeout, errCallTimeout)
	defer cancel()
	res := exec(tctx)
	if errors.Is(context.Cause(tctx), errCallTimeout) {
		return timedOut(l.timeout)
	}
	return res
}

// timedOut is the result of a call that ran out of time.
func timedOut(d time.Duration) tools.Result {
	msg := "tool call timed out after " + strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	return tools.Result{
		IsError: true,
		Content: []tools.Block{tools.TextBlock("Error: " + msg)},
		Error:   &tools.Failure{Message: msg, Info: &tools.ErrorInfo{Name: "TimeoutError", Code: "TIMEOUT"}},
	}
}
