package conformance_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/conformance"
	"github.com/dsh-go/dsh/plugins/fslocal"
	"github.com/dsh-go/dsh/plugins/fspolicy"
	"github.com/dsh-go/dsh/plugins/toolfs"
	"github.com/dsh-go/dsh/plugins/tools"
)

func TestMain(m *testing.M) {
	syscall.Umask(0o022) // the cases' mode checks assume it
	os.Exit(m.Run())
}

// deploy mounts the real plugins the way the default deployment does,
// confined to w, and returns the registry.
func deploy(t *testing.T, w string, c conformance.Case) *tools.Registry {
	t.Helper()
	h := host.New()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	ctx := t.Context()
	mount := func(p *host.Plugin, cfg any) {
		inst, err := h.Plugin(ctx, p, cfg)
		require.NoError(t, err)
		require.NoError(t, inst.Err())
	}
	mount(tools.Plugin, nil)
	mount(fslocal.Plugin, map[string]any{"cwd": w, "root": w})
	if c.Policy {
		mount(fspolicy.Plugin, nil)
	}
	mount(toolfs.Plugin, c.ToolFS)
	require.NoError(t, h.Audit())
	reg, ok := tools.Key.Get(h.Root())
	require.True(t, ok)
	return reg
}

// TestConformanceCases runs every case of testdata/cases.json in one
// session against the real plugins on a real temporary directory, checking
// the model-visible text byte for byte, the code, and the files afterwards.
func TestConformanceCases(t *testing.T) {
	cases, err := conformance.Cases()
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			w, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			require.NoError(t, c.Build(w))
			reg := deploy(t, w, c)
			session := &tools.Session{ID: "conformance", Cwd: w}
			require.Len(t, c.Expect, len(c.Calls))
			for i, call := range c.Calls {
				res := reg.Execute(t.Context(), call.Tool, call.ArgsFor(w), &tools.Exec{Session: session})
				want := c.Expect[i]
				assert.Equal(t, conformance.Subst(want.Text, w), res.Text(), "call %d (%s %s): text", i, call.Tool, call.Args)
				assert.Equal(t, want.IsError, res.IsError, "call %d: isError", i)
				assert.Equal(t, want.Code, res.Code(), "call %d: code", i)
			}
			assert.Empty(t, c.CheckFiles(w), "files after")
		})
	}
}
