//go:build natsbus

package natsbus_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/internal/stacktest"
)

// reloadWhileWriting runs writers goroutines that write until the entry
// has taken each config of configs (one restart each, as a `serve --watch`
// reload does), and returns the paths written successfully.
func reloadWhileWriting(t *testing.T, s *stacktest.Stack, raw map[string]any, configs []map[string]any, writers int) []string {
	t.Helper()
	inst := mountBus(t, s, raw)
	var stop atomic.Bool
	var mu sync.Mutex
	var ok []string
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			conv := s.Conversation(fmt.Sprintf("test/w/%d", g))
			for i := 0; !stop.Load(); i++ {
				p := fmt.Sprintf("w%d-%d.txt", g, i)
				if res := write(s, conv, p, "x"); !res.IsError {
					mu.Lock()
					ok = append(ok, p)
					mu.Unlock()
				}
			}
		})
	}
	for _, c := range configs {
		time.Sleep(50 * time.Millisecond) // writes under the running config, then the swap
		require.NoError(t, inst.Update(t.Context(), decoded(t, s, c)))
	}
	time.Sleep(50 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	return ok
}

// withTimeouts returns raw once per timeout, with that timeout: configs
// that differ, so that each is a restart.
func withTimeouts(raw map[string]any, timeouts ...string) []map[string]any {
	var out []map[string]any
	for _, d := range timeouts {
		c := map[string]any{}
		for k, v := range raw {
			c[k] = v
		}
		c["timeout"] = d
		out = append(out, c)
	}
	return out
}

// A reload of the entry while writes run: with a guard that denies
// everything under block, not one write succeeds (every intent is asked
// of the old or the new activation, or refused while the entry is
// swapped).
func TestAReloadNeverLetsAnIntentPassTheGuardUnasked(t *testing.T) {
	srv := natsServer(t, t.TempDir(), -1)
	nc := client(t, srv.ClientURL())
	var asked atomic.Int64
	answer(t, nc, func(*nats.Msg, wire.Intent) any {
		asked.Add(1)
		return wire.Decision{Decision: "deny", Message: "central no"}
	})
	s := stacktest.New(t, stacktest.Options{})
	raw := map[string]any{"url": srv.ClientURL(), "guards": []any{"fs/write-intent"}, "timeout": "2s"}
	ok := reloadWhileWriting(t, s, raw, withTimeouts(raw, "3s", "4s", "5s", "6s"), 4)
	assert.Empty(t, ok, "writes that passed a deny-all guard during a reload")
	assert.Positive(t, asked.Load())
}
