package cmd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/host"
)

// TestMainRefusesADuplicatePluginName: a plugin passed to Main under a registered name used to be dropped silently (the
// built-in won); it fails as a duplicate registration does.
func TestMainRefusesADuplicatePluginName(t *testing.T) {
	noop := func(context.Context, *host.Scope, struct{}) error { return nil }
	mine := host.Define("cmd-test-unique", noop)
	assert.NoError(t, register([]*host.Plugin{mine}))
	got, ok := host.Lookup("cmd-test-unique")
	assert.True(t, ok)
	assert.Same(t, mine, got)
	assert.NoError(t, register([]*host.Plugin{mine}), "the same plugin again is fine")
	impostor := host.Define("cmd-test-unique", noop)
	err := register([]*host.Plugin{impostor})
	assert.EqualError(t, err, `plugin "cmd-test-unique" registered twice: a plugin passed to cmd.Main has the name of one already registered`)
	got, _ = host.Lookup("cmd-test-unique")
	assert.Same(t, mine, got, "the first registration stays")
}
