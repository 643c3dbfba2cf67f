package host_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// host §3.6 "Observability": Snapshot lists every live instance but the
// root, in mount order, with its state, error and missing services.
func TestSnapshot(t *testing.T) {
	h := newHost(t)
	fs, tools := host.NewKey[string]("fs"), host.NewKey[string]("tools")
	extra := host.NewKey[string]("extra")
	assert.Empty(t, h.Snapshot())

	mount(t, h, define("toolfs", func(context.Context, *host.Scope) error { return nil },
		host.Inject(fs, tools), host.Optional(extra)), nil)
	mount(t, h, define("broken", func(context.Context, *host.Scope) error { return errors.New("disk on fire") }), nil, host.ID("broken-1"))
	mount(t, h, define("fslocal", func(ctx context.Context, s *host.Scope) error {
		if _, err := fs.Provide(s, "local"); err != nil {
			return err
		}
		_, err := extra.Provide(s, "bonus")
		return err
	}, host.Provides(fs)), nil)

	snap := h.Snapshot()
	require.Len(t, snap, 3)
	assert.Equal(t, host.InstanceInfo{
		ID: "toolfs", Parent: "root", Plugin: "toolfs", State: host.StatePending,
		Missing: []string{"tools"}, Injects: []string{"fs", "tools"}, Optional: []string{"extra"}, Provides: []string{},
	}, snap[0])
	assert.Equal(t, "broken-1", snap[1].ID)
	assert.Equal(t, "broken", snap[1].Plugin)
	assert.Equal(t, host.StateFailed, snap[1].State)
	assert.EqualError(t, snap[1].Err, `plugin "broken": disk on fire`)
	assert.Empty(t, snap[1].Missing)
	assert.Equal(t, "fslocal", snap[2].ID)
	assert.Equal(t, host.StateActive, snap[2].State)
	assert.Equal(t, []string{"fs", "extra"}, snap[2].Provides, "declared services first, then the ones provided now")
	assert.Nil(t, snap[2].Err)
}

// host §3.6 "Boot audit", §6 item 20 (Cordis #154): the audit names each
// FAILED instance with its error and each PENDING one with its missing
// services; it passes when every instance is ACTIVE.
func TestAudit(t *testing.T) {
	h := newHost(t)
	fs, tools := host.NewKey[string]("fs"), host.NewKey[string]("tools")
	assert.NoError(t, h.Audit(), "an empty host passes")
	mount(t, h, define("fine", func(context.Context, *host.Scope) error { return nil }), nil)
	assert.NoError(t, h.Audit())

	mount(t, h, define("toolfs", func(context.Context, *host.Scope) error { return nil }, host.Inject(fs, tools)), nil)
	mount(t, h, define("broken", func(context.Context, *host.Scope) error { return errors.New("disk on fire") }), nil)
	mount(t, h, samplePlugin(nil), sampleConfig{Limit: -1}, host.ID("cfg-entry"))

	err := h.Audit()
	assert.EqualError(t, err, "boot failed: not every plugin is active\n"+
		"  plugin \"toolfs\" (id \"toolfs\") is PENDING: waiting for services \"fs\", \"tools\"\n"+
		"  plugin \"broken\" (id \"broken\") is FAILED: plugin \"broken\": disk on fire\n"+
		"  plugin \"cfg\" (id \"cfg-entry\") is FAILED: plugin \"cfg\": invalid config: limit: must be at least 0")
	var be *host.BootError
	require.ErrorAs(t, err, &be)
	require.Len(t, be.Instances, 3)
	assert.Equal(t, []string{"fs", "tools"}, be.Instances[0].Missing)
	assert.ErrorIs(t, be.Instances[2].Err, host.ErrConfig)
}

// Host.Instance finds a live instance by ID (for reconciling deployments by
// entry id); the root, disposed and unknown IDs give nil.
func TestHostInstance(t *testing.T) {
	h := newHost(t)
	p := define("entry", func(context.Context, *host.Scope) error { return nil })
	a := mount(t, h, p, nil, host.ID("entry-1"))
	b := mount(t, h, p, nil)
	assert.Same(t, a, h.Instance("entry-1"))
	assert.Same(t, b, h.Instance("entry"))
	assert.Nil(t, h.Instance("root"))
	assert.Nil(t, h.Instance("nope"))
	require.NoError(t, a.Dispose(t.Context()))
	assert.Nil(t, h.Instance("entry-1"))
}

// Snapshot is deterministic: services provided beyond the declared ones are
// listed after them, sorted by name.
func TestSnapshotListsProvidedServicesInAStableOrder(t *testing.T) {
	h := newHost(t)
	keys := []*host.Key[int]{host.NewKey[int]("zeta"), host.NewKey[int]("alpha"), host.NewKey[int]("mid"), host.NewKey[int]("beta")}
	mount(t, h, define("many", func(_ context.Context, s *host.Scope) error {
		for _, k := range keys {
			if _, err := k.Provide(s, 1); err != nil {
				return err
			}
		}
		return nil
	}, host.Provides(keys[2])), nil)
	for range 20 {
		assert.Equal(t, []string{"mid", "alpha", "beta", "zeta"}, h.Snapshot()[0].Provides)
	}
}
