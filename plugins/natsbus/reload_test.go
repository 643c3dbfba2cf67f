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

// A reload of the entry while writes run, with a guard that allows and
// records: every successful write was asked of the guard, and is in the
// trail exactly once (the old activation's queue is handed over).
func TestAReloadAsksTheGuardAboutAndAuditsEverySuccessfulWrite(t *testing.T) {
	srv := natsServer(t, t.TempDir(), -1)
	nc := client(t, srv.ClientURL())
	var mu sync.Mutex
	asked := map[string]bool{}
	answer(t, nc, func(_ *nats.Msg, in wire.Intent) any {
		mu.Lock()
		asked[*in.Target.Rel] = true
		mu.Unlock()
		return wire.Decision{Decision: "next"}
	})
	s := stacktest.New(t, stacktest.Options{})
	raw := map[string]any{"url": srv.ClientURL(), "guards": []any{"fs/write-intent"}, "timeout": "2s",
		"audit": map[string]any{}}
	ok := reloadWhileWriting(t, s, raw, withTimeouts(raw, "3s", "4s", "5s", "6s"), 4)
	require.NotEmpty(t, ok)
	mu.Lock()
	var unasked []string
	for _, p := range ok {
		if !asked[p] {
			unasked = append(unasked, p)
		}
	}
	mu.Unlock()
	assert.Empty(t, unasked, "successful writes the guard was never asked about")

	got := map[string]int{}
	for _, ev := range trail(t, nc, "DSH_AUDIT", len(ok)) {
		got[ev.Subject]++
	}
	var missing, twice []string
	for _, p := range ok {
		switch got[p] {
		case 0:
			missing = append(missing, p)
		case 1:
		default:
			twice = append(twice, p)
		}
	}
	assert.Empty(t, missing, "successful writes missing from the trail")
	assert.Empty(t, twice, "successful writes in the trail more than once")
}
