package wire_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
)

// gatedConfig configures a carrier whose apply waits for gate (when set)
// before it joins, so that a test holds an entry between two activations.
type gatedConfig struct {
	Gen       int
	Gate      chan struct{} `json:"-"`
	OnFailure wire.OnFailure
	Fail      bool
	// UndoAndFail joins, takes the entry out again and fails, as an
	// apply that fails half-way undoes what it made.
	UndoAndFail bool
}

// gatedPlugin is a carrier whose guard denies every write, naming the
// activation (its Gen) that answered.
func gatedPlugin() *host.Plugin {
	return host.Define("gated", func(ctx context.Context, s *host.Scope, c gatedConfig) error {
		if c.Gate != nil {
			select {
			case <-c.Gate:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if c.Fail {
			return errors.New("cannot start")
		}
		undo, err := wire.Join(s, wire.Entry{Intents: []string{events.FSWriteIntent.Name()},
			Timeout: time.Second, OnFailure: c.OnFailure,
			Guard: func(context.Context, string, events.IntentRequest) error {
				return wire.NewDenied("g", "denied by activation "+string(rune('0'+c.Gen)), "")
			}})
		if err == nil && c.UndoAndFail {
			_ = undo(ctx)
			return errors.New("failed half-way")
		}
		return err
	})
}

// writeAsync dispatches fs/write-intent in a goroutine; the result is the
// trace and the error.
func writeAsync(h *host.Host) <-chan result {
	ch := make(chan result, 1)
	go func() {
		trace, err := dispatch(h, "write")
		ch <- result{trace, err}
	}()
	return ch
}

type result struct {
	trace []string
	err   error
}

func TestAnIntentDuringARestartWaitsForTheNextActivationAndNeverPassesUnasked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := hosttest.New(t)
		ctx := t.Context()
		g, err := h.Plugin(ctx, gatedPlugin(), gatedConfig{Gen: 1}, host.ID("g"))
		require.NoError(t, err)
		_, err = dispatch(h, "write")
		require.EqualError(t, err, "denied by activation 1")

		// A restart whose apply waits: the entry is between activations.
		gate := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { _ = g.Update(ctx, gatedConfig{Gen: 2, Gate: gate}) })
		synctest.Wait()
		require.Equal(t, host.StateLoading, g.State())
		res := writeAsync(h)
		synctest.Wait()
		select {
		case r := <-res:
			t.Fatalf("an intent during the swap returned without the guard: %v %v", r.trace, r.err)
		default:
		}
		assert.Equal(t, map[string]wire.State{"g": {Process: "restarting (LOADING)"}}, wire.States(h))
		close(gate)
		wg.Wait()
		r := <-res
		assert.EqualError(t, r.err, "denied by activation 2", "asked of the new activation")
		assert.Empty(t, r.trace, "the decider never ran")

		// A swap longer than the entry's Timeout: onFailure (block) applies.
		gate = make(chan struct{})
		wg.Go(func() { _ = g.Update(ctx, gatedConfig{Gen: 3, Gate: gate}) })
		synctest.Wait()
		start := time.Now()
		r = <-writeAsync(h)
		var u *wire.Unavailable
		require.ErrorAs(t, r.err, &u)
		assert.Equal(t, "the entry is restarting and did not take intents again within 1s", u.Cause)
		assert.Equal(t, time.Second, time.Since(start))
		assert.Empty(t, r.trace)
		close(gate)
		wg.Wait()

		// A new activation that fails: block refuses at once, allow goes on.
		_ = g.Update(ctx, gatedConfig{Gen: 4, Fail: true}) // the failure is the state (as a reload sees it)
		require.Equal(t, host.StateFailed, g.State())
		start = time.Now()
		_, err = dispatch(h, "write")
		require.ErrorAs(t, err, &u)
		assert.Contains(t, u.Cause, "the entry failed: ")
		assert.Zero(t, time.Since(start), "no wait for a FAILED entry")

		// An apply that joins, undoes and fails leaves the place held too.
		_ = g.Update(ctx, gatedConfig{Gen: 5, UndoAndFail: true})
		require.Equal(t, host.StateFailed, g.State())
		_, err = dispatch(h, "write")
		require.ErrorAs(t, err, &u)
		assert.Contains(t, u.Cause, "failed half-way")

		// Disposed for good: the entry is no longer asked.
		require.NoError(t, g.Dispose(ctx))
		trace, err := dispatch(h, "write")
		require.NoError(t, err)
		assert.Equal(t, []string{"default"}, trace)
		assert.Empty(t, wire.States(h))
	})
}

func TestAHeldEntryUnderAllowLetsTheIntentGoOnAfterItsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := hosttest.New(t)
		base := hosttest.TakeBaseline(h)
		ctx := t.Context()
		g, err := h.Plugin(ctx, gatedPlugin(), gatedConfig{Gen: 1, OnFailure: wire.Allow}, host.ID("g"))
		require.NoError(t, err)
		gate := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { _ = g.Update(ctx, gatedConfig{Gen: 2, Gate: gate}) })
		synctest.Wait()
		start := time.Now()
		r := <-writeAsync(h)
		require.NoError(t, r.err)
		assert.Equal(t, []string{"default"}, r.trace)
		assert.Equal(t, time.Second, time.Since(start))
		close(gate)
		wg.Wait()
		require.NoError(t, g.Dispose(ctx))
		base.Assert(t) // the listeners and the status hook went with the last entry
	})
}
