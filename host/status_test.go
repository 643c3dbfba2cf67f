package host_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// host §3.6 "Observability": OnStatus hooks see every transition in order;
// a panicking hook is logged and does not stop the others; a removed hook
// sees nothing more.
func TestOnStatus(t *testing.T) {
	var logs bytes.Buffer
	h := newHost(t, host.WithLogger(bufferLogger(&logs)))
	var j journal
	offPanicky := h.OnStatus(func(*host.Instance, host.State, host.State) { panic("hook exploded") })
	off := h.OnStatus(func(inst *host.Instance, old, new host.State) { j.add("%s %s->%s", inst.ID(), old, new) })
	inst := mount(t, h, define("watched", func(context.Context, *host.Scope) error { return nil }), nil)
	assert.Contains(t, logs.String(), `level=ERROR msg="status hook failed" err="status hook panicked: hook exploded"`)
	require.NoError(t, offPanicky(t.Context()))
	require.NoError(t, inst.Restart(t.Context()))
	require.NoError(t, off(t.Context()))
	require.NoError(t, inst.Dispose(t.Context()))
	assert.Equal(t, []string{
		"watched PENDING->LOADING", "watched LOADING->ACTIVE",
		"watched ACTIVE->UNLOADING", "watched UNLOADING->PENDING", "watched PENDING->LOADING", "watched LOADING->ACTIVE",
	}, j.list())
}

// host §3.5: a status hook runs with no host lock held, so it may call the
// host.
func TestAStatusHookMayCallTheHost(t *testing.T) {
	h := newHost(t)
	var seen []host.State
	h.OnStatus(func(inst *host.Instance, _, new host.State) {
		if inst.ID() == "watched" {
			seen = append(seen, inst.State())
			_ = h.Snapshot()
			_ = h.Counts()
		}
	})
	within(t, 5*time.Second, "a status hook calling the host", func() {
		inst := mount(t, h, define("watched", func(context.Context, *host.Scope) error { return nil }), nil)
		assert.NoError(t, inst.Dispose(context.Background()))
	})
	assert.Equal(t, []host.State{host.StateLoading, host.StateActive, host.StateUnloading, host.StateDisposed}, seen)
}
