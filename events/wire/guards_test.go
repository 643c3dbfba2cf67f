package wire_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// carrier is a stand-in carrier plugin: its guard records its id in the
// dispatch's trace and denies when its config says so.
type carrierConfig struct {
	Deny    bool
	Intents []string
}

type traceKey struct{}

func carrierPlugin() *host.Plugin {
	return host.Define("carrier", func(_ context.Context, s *host.Scope, c carrierConfig) error {
		id := s.Instance().ID()
		_, err := wire.Join(s, wire.Entry{Intents: c.Intents,
			Guard: func(ctx context.Context, event string, _ events.IntentRequest) error {
				*ctx.Value(traceKey{}).(*[]string) = append(*ctx.Value(traceKey{}).(*[]string), id+":"+event)
				if c.Deny {
					return wire.NewDenied(id, "denied by "+id, "")
				}
				return nil
			},
			State: func() wire.State { return wire.State{Process: "up " + id} }})
		return err
	})
}

func both() []string { return []string{events.FSWriteIntent.Name(), events.FSEditIntent.Name()} }

// dispatch runs fs/write-intent with a decider that never calls next,
// as fspolicy does, and returns the trace and the error.
func dispatch(h *host.Host, chain string) ([]string, error) {
	var trace []string
	ctx := context.WithValue(context.Background(), traceKey{}, &trace)
	req := events.IntentRequest{Target: fsapi.Target{Key: "k", DisplayPath: "/w/a"}}
	var err error
	switch chain {
	case "remove":
		_, err = events.FSRemoveIntent.Waterfall(ctx, h.Root(), req, func(context.Context) (*fsapi.RemoveGuard, error) {
			trace = append(trace, "default")
			return nil, nil
		})
	case "edit":
		_, err = events.FSEditIntent.Waterfall(ctx, h.Root(), req, func(context.Context) (*fsapi.EditGuard, error) {
			trace = append(trace, "default")
			return nil, nil
		})
	default:
		_, err = events.FSWriteIntent.Waterfall(ctx, h.Root(), req, func(context.Context) (*fsapi.WriteIntent, error) {
			trace = append(trace, "default")
			return nil, nil
		})
	}
	return trace, err
}

func TestWireGuardsRunInDeploymentOrderBeforeTheDecider(t *testing.T) {
	h := hosttest.New(t)
	base := hosttest.TakeBaseline(h)
	p := carrierPlugin()
	ctx := t.Context()
	// An in-process decider mounted first, as fspolicy is in the default
	// deployment: it never calls next.
	decider := host.Define("decider", func(_ context.Context, s *host.Scope, _ struct{}) error {
		_, err := events.FSWriteIntent.On(s, func(ctx context.Context, _ events.IntentRequest, _ host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
			*ctx.Value(traceKey{}).(*[]string) = append(*ctx.Value(traceKey{}).(*[]string), "decider")
			return nil, nil
		})
		return err
	})
	_, err := h.Plugin(ctx, decider, nil)
	require.NoError(t, err)
	a, err := h.Plugin(ctx, p, carrierConfig{Intents: both()}, host.ID("a"))
	require.NoError(t, err)
	b, err := h.Plugin(ctx, p, carrierConfig{Intents: []string{events.FSEditIntent.Name()}}, host.ID("b"))
	require.NoError(t, err)
	c, err := h.Plugin(ctx, p, carrierConfig{Intents: both()}, host.ID("c"))
	require.NoError(t, err)

	trace, err := dispatch(h, "write")
	require.NoError(t, err)
	assert.Equal(t, []string{"a:fs/write-intent", "c:fs/write-intent", "decider"}, trace, "b asked only for edits")
	trace, err = dispatch(h, "edit")
	require.NoError(t, err)
	assert.Equal(t, []string{"a:fs/edit-intent", "b:fs/edit-intent", "c:fs/edit-intent", "default"}, trace)
	trace, err = dispatch(h, "remove")
	require.NoError(t, err)
	assert.Equal(t, []string{"default"}, trace, "nobody asked for removals")

	// A restart keeps the place; a deny stops the chain.
	require.NoError(t, a.Update(ctx, carrierConfig{Intents: both(), Deny: true}))
	trace, err = dispatch(h, "write")
	assert.EqualError(t, err, "denied by a")
	assert.Equal(t, []string{"a:fs/write-intent"}, trace, "a restarted and still runs first")
	require.NoError(t, a.Update(ctx, carrierConfig{Intents: both()}))
	require.NoError(t, b.Update(ctx, carrierConfig{Intents: both(), Deny: true}))
	trace, err = dispatch(h, "write")
	assert.EqualError(t, err, "denied by b")
	assert.Equal(t, []string{"a:fs/write-intent", "b:fs/write-intent"}, trace)

	assert.Equal(t, map[string]wire.State{"a": {Process: "up a"}, "b": {Process: "up b"}, "c": {Process: "up c"}}, wire.States(h))

	var errs []error
	for _, i := range []*host.Instance{a, b, c} {
		errs = append(errs, i.Dispose(ctx))
	}
	require.NoError(t, errors.Join(errs...))
	trace, err = dispatch(h, "write")
	require.NoError(t, err)
	assert.Equal(t, []string{"decider"}, trace)
	assert.Empty(t, wire.States(h))
	dec := h.Instance("decider")
	require.NoError(t, dec.Dispose(ctx))
	base.Assert(t) // the shared listeners went with the last entry
}

func TestAGuardOnTheWireVetoesARemoval(t *testing.T) {
	h := hosttest.New(t)
	p := carrierPlugin()
	_, err := h.Plugin(t.Context(), p, carrierConfig{Intents: []string{events.FSRemoveIntent.Name()}, Deny: true}, host.ID("r"))
	require.NoError(t, err)
	trace, err := dispatch(h, "remove")
	assert.EqualError(t, err, "denied by r")
	assert.Equal(t, []string{"r:fs/remove-intent"}, trace, "the default continuation never ran")
	trace, err = dispatch(h, "write")
	require.NoError(t, err)
	assert.Equal(t, []string{"default"}, trace, "r asked only for removals")
	assert.Equal(t, []string{"fs/write-intent", "fs/edit-intent", "fs/remove-intent"}, wire.Intents)
}
