package tools_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/tools"
)

func TestInstallRegistersToolsThenSectionsAndStopsAtTheFirstFailure(t *testing.T) {
	reg, _ := newRegistry(t)
	h := host.New()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	exec := func(context.Context, tools.Args, *tools.Exec) (any, error) { return nil, nil }
	a := tools.Tool{Name: "a", Execute: exec}
	b := tools.Tool{Name: "b", Execute: exec}
	plugin := host.Define("installer", func(_ context.Context, s *host.Scope, _ struct{}) error {
		return reg.Install(s, []tools.Tool{a, b}, []tools.Section{{Name: "s:a", Order: 2, Text: "A"}, {Name: "s:b", Order: 1, Text: "B"}})
	})
	inst, err := h.Plugin(t.Context(), plugin, nil)
	require.NoError(t, err)
	require.Equal(t, host.StateActive, inst.State())
	assert.Len(t, reg.Tools(), 2)
	assert.Equal(t, "B\n\nA", reg.Prompt())

	dup := host.Define("duplicate", func(_ context.Context, s *host.Scope, _ struct{}) error {
		return reg.Install(s, []tools.Tool{{Name: "c", Execute: exec}, a}, []tools.Section{{Name: "s:c", Text: "C"}})
	})
	inst2, err := h.Plugin(t.Context(), dup, nil)
	require.NoError(t, err)
	assert.Equal(t, host.StateFailed, inst2.State(), "a duplicate name fails the install")
	assert.Len(t, reg.Tools(), 2, "what it registered before the failure is rolled back")
	assert.Equal(t, "B\n\nA", reg.Prompt())

	require.NoError(t, inst.Dispose(t.Context()))
	assert.Empty(t, reg.Tools())
	assert.Empty(t, reg.Sections())
}
