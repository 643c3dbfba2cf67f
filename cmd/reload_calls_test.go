package cmd

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/tools"
)

// holdConfig is the config of the test plugin "holdtool".
type holdConfig struct {
	N int `json:"n"`
}

// holdStarted receives once per call of the tool "hold", which then runs
// until holdRelease is closed (answering `n=<N>`) or its context ends.
var (
	holdStarted = make(chan struct{}, 16)
	holdRelease = make(chan struct{})
)

// holdPlugin registers the tool "hold" (a long call, as a grep of a big
// tree is).
var holdPlugin = host.Define("holdtool", func(_ context.Context, s *host.Scope, cfg holdConfig) error {
	_, err := tools.Key.Must(s).Register(s, tools.Tool{Name: "hold", Execute: func(ctx context.Context, _ tools.Args, _ *tools.Exec) (any, error) {
		holdStarted <- struct{}{}
		select {
		case <-holdRelease:
			return fmt.Sprintf("n=%d", cfg.N), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}})
	return err
}, host.Inject(tools.Key))

func init() { host.Register(holdPlugin) }

// holdYAML is a deployment with the holdtool entry set to n.
func holdYAML(n int) string {
	return fmt.Sprintf("plugins:\n  - name: fslocal\n  - name: toolfs\n  - name: holdtool\n    config: {n: %d}\n", n)
}

// A reload that replaces an entry with a call in flight waits for the call
// (it is not aborted by the dispose timeout, and the change is not
// dropped), says so in the log, and a call that arrives meanwhile waits for
// the new instance instead of getting `unknown tool`.
func TestAReloadWaitsForTheCallsOfTheEntriesItReplaces(t *testing.T) {
	l := startLive(t, holdYAML(1))
	first := make(chan string, 1)
	go func() { text, _ := l.call("hold", map[string]any{}); first <- text }()
	select {
	case <-holdStarted:
	case text := <-first:
		t.Fatalf("the call did not start: %s", text)
	}

	l.replace(holdYAML(2))
	require.Eventually(t, func() bool {
		return strings.Contains(l.logs.String(), `msg="config reload: waiting for 1 calls of holdtool"`)
	}, 15*time.Second, 10*time.Millisecond, "the reload says what it waits for")
	second := make(chan string, 1)
	go func() { text, _ := l.call("hold", map[string]any{}); second <- text }()
	select {
	case text := <-second:
		t.Fatalf("a call during the wait did not wait for the new instance: %s", text)
	case <-time.After(100 * time.Millisecond):
	}
	close(holdRelease)

	assert.Equal(t, `"n=1"`, <-first, "the call in flight finished on the old instance")
	rep := l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, "restarted [holdtool]", rep.String())
	assert.Equal(t, holdConfig{N: 2}, l.rt.host.Instance("holdtool").Config())
	assert.Equal(t, `"n=2"`, <-second, "the call made during the wait ran on the new instance")
	assert.Contains(t, l.logs.String(), `msg="config reload: the calls ended; applying the change" entries=holdtool`)
}
