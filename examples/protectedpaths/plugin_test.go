package protectedpaths_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/examples/protectedpaths"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
	"github.com/dsh-go/dsh/plugins/fslocal"
	"github.com/dsh-go/dsh/plugins/fspolicy"
	"github.com/dsh-go/dsh/plugins/toolfs"
	"github.com/dsh-go/dsh/plugins/tools"
)

func TestTheGuardFollowsTheFSProvider(t *testing.T) {
	w := tempDir(t)
	h := hosttest.New(t)
	baseline := hosttest.TakeBaseline(h)
	guard, err := h.Plugin(t.Context(), protectedpaths.Plugin, protectedpaths.Config{Paths: []string{"secret.txt"}})
	require.NoError(t, err)
	assert.Equal(t, host.StatePending, guard.State(), "it waits for the fs service")
	assert.Equal(t, []string{"fs"}, guard.Missing())

	fs1, err := h.Plugin(t.Context(), fslocal.Plugin, fslocal.Config{Cwd: w, Root: w})
	require.NoError(t, err)
	require.NoError(t, guard.Wait(t.Context()))
	assert.Equal(t, 3, h.Counts().Listeners-baseline.Counts().Listeners, "one guard on each intent event")

	require.NoError(t, fs1.Dispose(t.Context()))
	assert.Equal(t, host.StatePending, guard.State(), "it unloads with its provider")
	assert.Equal(t, baseline.Counts().Listeners, h.Counts().Listeners)

	fs2, err := h.Plugin(t.Context(), fslocal.Plugin, fslocal.Config{Cwd: w, Root: w})
	require.NoError(t, err)
	require.NoError(t, guard.Wait(t.Context()), "it revives with the next provider")

	require.NoError(t, guard.Dispose(t.Context()))
	require.NoError(t, fs2.Dispose(t.Context()))
	baseline.Assert(t)
}

func TestConfigErrors(t *testing.T) {
	w := tempDir(t)
	tests := []struct {
		name  string
		paths any
		want  string
	}{
		{"a malformed glob is refused before apply", []any{"ok", "secrets/["},
			`plugin "protectedpaths": invalid config: paths[1]: protectedpaths: bad pattern "secrets/[": syntax error in pattern`},
		{"a blank pattern is refused before apply", []any{" "},
			`plugin "protectedpaths": invalid config: paths[0]: protectedpaths: a pattern must be a non-empty string`},
		{"a single string is not a list", "secrets",
			`plugin "protectedpaths": invalid config: paths: expected a list, got string "secrets"`},
		{"a relative pattern the provider refuses fails apply", []any{"../elsewhere/*"},
			`plugin "protectedpaths": protectedpaths: cannot resolve pattern "../elsewhere/*": cannot resolve "` + filepath.Dir(w) + `/elsewhere": outside the workspace`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := hosttest.New(t)
			_, err := h.Plugin(t.Context(), fslocal.Plugin, fslocal.Config{Cwd: w, Root: w})
			require.NoError(t, err)
			cfg, err := config.Decode(protectedpaths.Plugin, map[string]any{"paths": tc.paths})
			if err != nil {
				assert.EqualError(t, err, tc.want, "refused by the deployment decoder, before any mount")
				return
			}
			inst, err := h.Plugin(t.Context(), protectedpaths.Plugin, cfg)
			require.NoError(t, err)
			assert.Equal(t, host.StateFailed, inst.State())
			assert.EqualError(t, inst.Err(), tc.want)
		})
	}
}

func TestTheErrorIsCoded(t *testing.T) {
	err := &protectedpaths.Error{Op: "edit", Path: "/w/bad\xffname", Rule: "*"}
	assert.EqualError(t, err, `cannot edit "/w/bad`+"\uFFFD"+`name": the path is protected by rule "*"`)
	assert.Equal(t, "ProtectedPathError", err.ErrorName())
	assert.Equal(t, "PATH_PROTECTED", err.ErrorCode())
}

func TestListedBeforeToolfsTheGuardIsBackBeforeTheTools(t *testing.T) {
	// The deployment advice of the guide: when the fs provider restarts,
	// waiting instances start in creation order, so a guard mounted before
	// toolfs is ACTIVE again before the tools are registered again.
	w := tempDir(t)
	h := hosttest.New(t)
	var fs *host.Instance
	for _, m := range []struct {
		p   *host.Plugin
		cfg any
	}{
		{tools.Plugin, nil},
		{fslocal.Plugin, fslocal.Config{Cwd: w, Root: w}},
		{protectedpaths.Plugin, protectedpaths.Config{Paths: []string{"secret.txt"}}},
		{fspolicy.Plugin, nil},
		{toolfs.Plugin, nil},
	} {
		inst, err := h.Plugin(t.Context(), m.p, m.cfg)
		require.NoError(t, err)
		if m.p == fslocal.Plugin {
			fs = inst
		}
	}
	require.NoError(t, h.Audit())
	var activated []string
	stop := h.OnStatus(func(inst *host.Instance, _, state host.State) {
		if state == host.StateActive {
			activated = append(activated, inst.Plugin().Name())
		}
	})
	defer stop(context.Background())
	require.NoError(t, fs.Restart(t.Context()))
	assert.Equal(t, []string{"fslocal", "protectedpaths", "toolfs"}, activated)
}
