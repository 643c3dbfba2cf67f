package fslocal_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  fslocal.Config
		err  error
	}{
		{"preserve is valid", fslocal.Config{HardLinks: "preserve"}, nil},
		{"break is valid", fslocal.Config{HardLinks: "break"}, nil},
		{"empty is valid (break when confined, else preserve)", fslocal.Config{}, nil},
		{"anything else is refused", fslocal.Config{HardLinks: "Preserve"}, fslocal.ErrHardLinks},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.err == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tc.err)
			var ce *host.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, []host.ConfigIssue{{Path: "hardLinks", Problem: tc.err.Error()}}, ce.Issues, "the issue names the key path")
		})
	}
}

func TestNewConfig(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	tests := []struct {
		name string
		cfg  fslocal.Config
		want error
	}{
		{"a missing root is refused", fslocal.Config{Cwd: dir, Root: filepath.Join(dir, "missing")}, fslocal.ErrRootNotDirectory},
		{"a file as root is refused", fslocal.Config{Cwd: dir, Root: file}, fslocal.ErrRootNotDirectory},
		{"a cwd outside the root is refused", fslocal.Config{Cwd: "/", Root: dir}, fslocal.ErrCwdOutsideRoot},
		{"a bad hardLinks value is refused", fslocal.Config{HardLinks: "copy"}, fslocal.ErrHardLinks},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fslocal.New(tc.cfg)
			assert.ErrorIs(t, err, tc.want)
		})
	}
	t.Run("the exact load-time messages", func(t *testing.T) {
		assert.EqualError(t, fslocal.ErrRootNotDirectory, "fslocal: root must be an existing directory")
		assert.EqualError(t, fslocal.ErrCwdOutsideRoot, "fslocal: cwd must be inside root")
		assert.EqualError(t, fslocal.ErrHardLinks, `fslocal: hardLinks must be "preserve" or "break"`)
	})
	t.Run("a relative root is made absolute and canonical", func(t *testing.T) {
		t.Chdir(dir)
		p, err := fslocal.New(fslocal.Config{Root: "."})
		require.NoError(t, err)
		defer p.Close()
		assert.Equal(t, dir, p.Root())
		assert.Equal(t, dir, p.Cwd(), "an empty cwd is the working directory")
	})
	t.Run("root / confines nothing", func(t *testing.T) {
		p, err := fslocal.New(fslocal.Config{Cwd: dir, Root: "/"})
		require.NoError(t, err)
		defer p.Close()
		assert.Empty(t, p.Root())
		_, err = p.Resolve(context.Background(), "/etc/hostname", fsapi.ResolveOptions{})
		assert.NoError(t, err)
	})
	t.Run("without a root dot-dot leaves the cwd freely", func(t *testing.T) {
		p, err := fslocal.New(fslocal.Config{Cwd: dir})
		require.NoError(t, err)
		tg, err := p.Resolve(context.Background(), "../x", fsapi.ResolveOptions{})
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(filepath.Dir(dir), "x"), tg.Key)
	})
}

// mustRel returns target relative to base.
