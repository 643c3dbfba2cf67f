package host_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/host"
)

// style §2.3: plugins register by name at init; an empty or duplicate name
// is a programming error that panics. (The registry is process-global, so
// this test uses a name no plugin package takes.)
func TestRegister(t *testing.T) {
	registerRuns++ // a fresh name for each run of this test in one process (-count)
	name := fmt.Sprintf("hosttest-registry-probe-%d", registerRuns)
	p := host.Define(name, func(context.Context, *host.Scope, noConfig) error { return nil })
	host.Register(p)
	got, ok := host.Lookup(name)
	assert.True(t, ok)
	assert.Same(t, p, got)
	assert.Contains(t, host.Registered(), p)
	names := []string{}
	for _, r := range host.Registered() {
		names = append(names, r.Name())
	}
	assert.IsNonDecreasing(t, names, "sorted by name")

	assert.PanicsWithValue(t, fmt.Sprintf("host: plugin %q registered twice", name), func() { host.Register(p) })
	assert.PanicsWithValue(t, "host: Register of a plugin without a name", func() {
		host.Register(host.Define("", func(context.Context, *host.Scope, noConfig) error { return nil }))
	})
	assert.PanicsWithValue(t, "host: Register of a plugin without a name", func() { host.Register(nil) })
	_, ok = host.Lookup("no-such-plugin")
	assert.False(t, ok)
}

var registerRuns int
