package tools_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/tools"
)

// slowPlugin defines a plugin registering the tool "slow", whose calls
// return answer once they receive from release (at once when it is nil).
func slowPlugin(reg *tools.Registry, answer string, started chan<- struct{}, release <-chan struct{}) *host.Plugin {
	return host.Define("slow-"+answer, func(_ context.Context, s *host.Scope, _ struct{}) error {
		_, err := reg.Register(s, tools.Tool{Name: "slow", Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) {
			if started != nil {
				started <- struct{}{}
			}
			if release != nil {
				<-release
			}
			return answer, nil
		}})
		return err
	})
}

// Running and AwaitIdle count the calls of one plugin instance's tools:
// a reload waits on them before it replaces the instance.
func TestAwaitIdleWaitsForTheCallsOfTheOwners(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg, root := newRegistry(t)
		started, release := make(chan struct{}, 1), make(chan struct{})
		_, err := root.Plugin(t.Context(), slowPlugin(reg, "old", started, release), nil, host.ID("search"))
		require.NoError(t, err)
		go reg.Execute(context.Background(), "slow", nil, nil)
		<-started
		assert.Equal(t, 1, reg.Running("search"))
		assert.Equal(t, 0, reg.Running("other"))

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		idle := make(chan error, 1)
		go func() { idle <- reg.AwaitIdle(ctx, "search") }()
		time.Sleep(59 * time.Second)
		synctest.Wait()
		require.Empty(t, idle, "still waiting while the call runs")
		release <- struct{}{}
		require.NoError(t, <-idle)
		assert.Equal(t, 0, reg.Running("search"))

		go reg.Execute(context.Background(), "slow", nil, nil)
		<-started
		short, stop := context.WithTimeout(context.Background(), time.Second)
		defer stop()
		assert.ErrorIs(t, reg.AwaitIdle(short, "search"), context.DeadlineExceeded, "bounded by its context")
		release <- struct{}{}
	})
}

// While a swap of a plugin's tools is held, a new call of one waits: for
// the new instance, and runs on it, instead of `unknown tool`, or for the
// release, and runs on the old one (the change was taken in place);
// without a hold, or after SwapWait, an unknown tool is unknown at once.
func TestACallDuringASwapWaitsForTheNewInstance(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg, root := newRegistry(t)
		old, err := root.Plugin(t.Context(), slowPlugin(reg, "old", nil, nil), nil, host.ID("search"))
		require.NoError(t, err)
		result := make(chan tools.Result, 1)

		release := reg.HoldSwap("search")
		go func() { result <- reg.Execute(context.Background(), "slow", nil, nil) }()
		time.Sleep(time.Second)
		synctest.Wait()
		require.Empty(t, result, "a paused tool admits no call")
		release()
		assert.Equal(t, "old", (<-result).Value, "the release reopens it")

		release = reg.HoldSwap("search")
		require.NoError(t, old.Dispose(context.Background()))
		go func() { result <- reg.Execute(context.Background(), "slow", nil, nil) }()
		time.Sleep(29 * time.Second)
		synctest.Wait()
		require.Empty(t, result, "the call waits for the swap")
		_, err = root.Plugin(t.Context(), slowPlugin(reg, "new", nil, nil), nil)
		require.NoError(t, err)
		assert.Equal(t, "new", (<-result).Value, "it ran on the new instance")
		release()
		release()

		assert.Equal(t, "new", reg.Execute(context.Background(), "slow", nil, nil).Value)
		assert.Equal(t, `Error: unknown tool "missing"`, reg.Execute(context.Background(), "missing", nil, nil).Text(), "no hold: at once")

		defer reg.HoldSwap()()
		start := time.Now()
		assert.Equal(t, `Error: unknown tool "missing"`, reg.Execute(context.Background(), "missing", nil, nil).Text())
		assert.Equal(t, tools.SwapWait, time.Since(start), "a held swap waits SwapWait at most")
	})
}
