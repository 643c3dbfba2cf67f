package fslocal_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

func TestPluginProvidesFS(t *testing.T) {
	ctx := context.Background()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	h := hosttest.New(t)
	base := hosttest.TakeBaseline(h)

	first, err := h.Plugin(ctx, fslocal.Plugin, fslocal.Config{Cwd: dir, Root: dir})
	require.NoError(t, err)
	require.NoError(t, first.Wait(ctx))
	assert.Equal(t, []string{"fs"}, h.Snapshot()[0].Provides)

	fsys, ok := fsapi.Key.Get(h.Root())
	require.True(t, ok, "the fs service appears")
	p, ok := fsys.(*fslocal.Provider)
	require.True(t, ok)
	assert.Equal(t, dir, p.Root())
	assert.Equal(t, dir, p.Cwd())
	tg, err := fsys.Resolve(ctx, "x.txt", fsapi.ResolveOptions{})
	require.NoError(t, err)
	_, err = fsys.WriteText(ctx, tg, "hello", nil)
	require.NoError(t, err)

	t.Run("a second fslocal mount fails as a duplicate and the first is unaffected", func(t *testing.T) {
		second, err := h.Plugin(ctx, fslocal.Plugin, nil)
		require.NoError(t, err)
		err = second.Wait(ctx)
		assert.ErrorIs(t, err, host.ErrDuplicateService)
		assert.Equal(t, host.StateFailed, second.State())
		again, ok := fsapi.Key.Get(h.Root())
		require.True(t, ok)
		assert.Same(t, p, again)
		text, err := again.ReadText(ctx, tg)
		require.NoError(t, err)
		assert.Equal(t, "hello", text)
		require.NoError(t, second.Dispose(ctx))
	})

	t.Run("disposal withdraws the service and closes the provider", func(t *testing.T) {
		require.NoError(t, first.Dispose(ctx))
		_, ok := fsapi.Key.Get(h.Root())
		assert.False(t, ok)
		_, err := p.ReadText(ctx, tg)
		assert.Error(t, err, "the confinement root handle is closed")
		base.Assert(t)
	})
}

func TestPluginConfig(t *testing.T) {
	ctx := context.Background()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	tests := []struct {
		name string
		cfg  any
		want string // substring of the load error
	}{
		{"an unknown key is rejected by the decoder", map[string]any{"cwd": dir, "jail": dir}, "jail"},
		{"a bad hardLinks value fails validation", map[string]any{"hardLinks": "copy"}, `fslocal: hardLinks must be "preserve" or "break"`},
		{"a missing root fails the load", map[string]any{"root": filepath.Join(dir, "missing")}, "fslocal: root must be an existing directory"},
		{"a cwd outside the root fails the load", map[string]any{"cwd": "/", "root": dir}, "fslocal: cwd must be inside root"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := hosttest.New(t)
			cfg, err := config.Decode(fslocal.Plugin, tc.cfg)
			if err != nil {
				assert.Contains(t, err.Error(), tc.want, "refused by the decoder")
				return
			}
			inst, err := h.Plugin(ctx, fslocal.Plugin, cfg)
			require.NoError(t, err)
			err = inst.Wait(ctx)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, host.StateFailed, inst.State())
			_, ok := fsapi.Key.Get(h.Root())
			assert.False(t, ok)
		})
	}
	t.Run("the defaults are hardLinks unset, the working directory, no root and editMaxBytes 1 GiB", func(t *testing.T) {
		cfg, ok := fslocal.Plugin.DefaultConfig().(fslocal.Config)
		require.True(t, ok)
		assert.Equal(t, fslocal.Config{EditMaxBytes: 1 << 30}, cfg, "hardLinks unset: break when confined, else preserve [D9+]")
		t.Chdir(dir)
		h := hosttest.New(t)
		inst, err := h.Plugin(ctx, fslocal.Plugin, nil)
		require.NoError(t, err)
		require.NoError(t, inst.Wait(ctx))
		fsys := fsapi.Key.Must(inst.Scope())
		assert.Equal(t, dir, fsys.(*fslocal.Provider).Cwd())
		assert.Empty(t, fsys.(*fslocal.Provider).Root())
	})
}
