package host_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// host §6 item 18, §1.5: Parallel starts every listener at once, waits for
// all, and joins every failure (Cordis PR #131 had an empty aggregate).
func TestParallelRunsEveryListenerAndJoinsEveryFailure(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	p := host.NewParallel[int]("test/parallel")
	assert.Equal(t, "test/parallel", p.Name())
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	allStarted := make(chan struct{})
	go func() { started.Wait(); close(allStarted) }()
	var mu sync.Mutex
	finished := map[int]bool{}
	for i := range n {
		_, err := p.On(s, func(ctx context.Context, a int) error {
			started.Done()
			select { // every listener is running at the same time
			case <-allStarted:
			case <-time.After(5 * time.Second):
				return errors.New("listeners did not run concurrently")
			}
			mu.Lock()
			finished[i] = true
			mu.Unlock()
			switch i {
			case 1:
				return fmt.Errorf("listener %d failed on %d", i, a)
			case 2:
				panic("listener 2 exploded")
			case 3:
				return fmt.Errorf("listener %d failed on %d", i, a)
			}
			return nil
		})
		require.NoError(t, err)
	}
	err := p.Dispatch(t.Context(), s, 9)
	assert.EqualError(t, err, "listener 1 failed on 9\nlistener of \"test/parallel\" panicked: listener 2 exploded\nlistener 3 failed on 9")
	assert.Equal(t, map[int]bool{0: true, 1: true, 2: true, 3: true}, finished, "all listeners settled before Dispatch returned")
}

func TestParallelWithoutFailures(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	p := host.NewParallel[string]("test/parallel-ok")
	assert.NoError(t, p.Dispatch(t.Context(), s, "nobody listens"))
	var j journal
	for _, name := range []string{"a", "b"} {
		_, err := p.On(s, func(context.Context, string) error { j.add("%s", name); return nil })
		require.NoError(t, err)
	}
	_, err := p.On(s, func(context.Context, string) error { j.add("once"); return nil }, host.Once())
	require.NoError(t, err)
	require.NoError(t, p.Dispatch(t.Context(), s, "x"))
	require.NoError(t, p.Dispatch(t.Context(), s, "x"))
	assert.ElementsMatch(t, []string{"a", "b", "once", "a", "b"}, j.list())
}
