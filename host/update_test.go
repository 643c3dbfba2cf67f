package host_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// An update hook (Cordis's accept) takes a config change in place: apply
// does not run again, the scope and its registrations stay, and the new
// config is the instance's. A hook that declines makes Update restart.
func TestOnUpdateTakesAChangeInPlace(t *testing.T) {
	h := newHost(t)
	var applied, hooked []int
	p := samplePlugin(func(_ context.Context, s *host.Scope, c sampleConfig) error {
		applied = append(applied, c.Limit)
		return host.OnUpdate(s, func(_ context.Context, c sampleConfig) error {
			if c.Name == "decline" {
				return errors.New("cannot change the name in place")
			}
			hooked = append(hooked, c.Limit)
			return nil
		})
	})
	inst := mount(t, h, p, sampleConfig{Limit: 1})
	scope := inst.Scope()

	require.NoError(t, inst.Update(t.Context(), sampleConfig{Limit: 2}))
	assert.Equal(t, []int{1}, applied, "apply does not run again")
	assert.Equal(t, []int{2}, hooked)
	assert.Same(t, scope, inst.Scope(), "the activation survives")
	assert.Equal(t, 2, inst.Config().(sampleConfig).Limit)

	require.NoError(t, inst.Update(t.Context(), sampleConfig{Limit: 3, Name: "decline"}))
	assert.Equal(t, []int{1, 3}, applied, "a declined change restarts the instance")
	assert.NotSame(t, scope, inst.Scope())
	assert.Equal(t, 3, inst.Config().(sampleConfig).Limit)
	assert.Equal(t, host.StateActive, inst.State())

	err := inst.Update(t.Context(), sampleConfig{Limit: -1})
	assert.ErrorIs(t, err, host.ErrConfig, "the hook never sees an invalid config")
	assert.Equal(t, []int{2}, hooked)
}

func TestOnUpdateChecksTheConfigType(t *testing.T) {
	h := newHost(t)
	var hookErr error
	p := samplePlugin(func(_ context.Context, s *host.Scope, _ sampleConfig) error {
		hookErr = host.OnUpdate(s, func(context.Context, int) error { return nil })
		return nil
	})
	mount(t, h, p, nil)
	assert.EqualError(t, hookErr, `host: OnUpdate for plugin "cfg" has type int, want host_test.sampleConfig`)
}

func TestOnUpdateOnAnInactiveScope(t *testing.T) {
	h := newHost(t)
	var s *host.Scope
	inst := mount(t, h, samplePlugin(func(_ context.Context, sc *host.Scope, _ sampleConfig) error { s = sc; return nil }), nil)
	require.NoError(t, inst.Dispose(t.Context()))
	assert.ErrorIs(t, host.OnUpdate(s, func(context.Context, sampleConfig) error { return nil }), host.ErrInactive)
}
