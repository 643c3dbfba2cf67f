package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/tools"
)

// TestAWaitingCallCancelledIsAbortedBeforeDispatch: with the only slot
// taken, a call whose context ends while it waits gets the registry's
// answer for a cancelled call (contract §5.2 step 2) and runs no body.
func TestAWaitingCallCancelledIsAbortedBeforeDispatch(t *testing.T) {
	st := stacktest.New(t, stacktest.Options{})
	c := newCalls(1, time.Minute)
	release := make(chan struct{})
	running := make(chan struct{})
	go c.run(context.Background(), func(context.Context) tools.Result { close(running); <-release; return tools.Result{} })
	defer close(release)
	<-running
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	res := c.run(ctx, func(ctx context.Context) tools.Result {
		return st.Registry.Execute(ctx, "write", []byte(`{"file_path":"x.txt","content":"x"}`), &tools.Exec{Session: st.Session("s")})
	})
	assert.True(t, res.IsError)
	assert.Equal(t, "Error: tool call aborted before dispatch", res.Text())
	assert.Equal(t, "ABORTED_BEFORE_DISPATCH", res.Code())
	assert.NoFileExists(t, st.W+"/x.txt")
}
