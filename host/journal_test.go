package host_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
)

// journal is an ordered, goroutine-safe record of what happened during a
// test, so assertions can compare exact orders.
type journal struct {
	mu      sync.Mutex
	entries []string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, fmt.Sprintf(format, args...))
}

// list returns a copy of the entries so far.
func (j *journal) list() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string{}, j.entries...)
}

// take returns the entries so far and empties the journal.
func (j *journal) take() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := j.entries
	j.entries = nil
	if out == nil {
		out = []string{}
	}
	return out
}

// effect returns a disposer that records `dispose <label>`.
func (j *journal) effect(label string) host.Disposer {
	return func(context.Context) error {
		j.add("dispose %s", label)
		return nil
	}
}

// watchStates records every state transition of h as `<id> OLD->NEW`.
func watchStates(t *testing.T, h *host.Host, j *journal) {
	t.Helper()
	off := h.OnStatus(func(inst *host.Instance, old, new host.State) {
		j.add("%s %s->%s", inst.ID(), old, new)
	})
	t.Cleanup(func() { _ = off(context.Background()) })
}

// mount mounts p under h's root and requires the mount itself to succeed.
func mount(t *testing.T, h *host.Host, p *host.Plugin, cfg any, opts ...host.MountOption) *host.Instance {
	t.Helper()
	inst, err := h.Plugin(t.Context(), p, cfg, opts...)
	require.NoError(t, err)
	require.NotNil(t, inst)
	return inst
}

// waitActive waits (bounded) for inst to become ACTIVE.
func waitActive(t *testing.T, inst *host.Instance) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	require.NoError(t, inst.Wait(ctx), "instance %q did not become ACTIVE", inst.ID())
}

// within runs fn in a goroutine and fails t unless it returns before d: a
// deadlock shows as a failure, not a hung test.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not finish within %s (deadlock?)", what, d)
	}
}

// newHost is hosttest.New, named for brevity in tables.
func newHost(t *testing.T, opts ...host.Option) *host.Host {
	t.Helper()
	return hosttest.New(t, opts...)
}

// noConfig is the config type of plugins that take none.
type noConfig = struct{}

// define makes a config-less plugin from an apply function.
func define(name string, apply func(ctx context.Context, s *host.Scope) error, opts ...host.PluginOption) *host.Plugin {
	return host.Define(name, func(ctx context.Context, s *host.Scope, _ noConfig) error {
		return apply(ctx, s)
	}, opts...)
}
