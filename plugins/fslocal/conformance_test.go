package fslocal_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fsapi/fsapitest"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// TestConformance runs the provider-agnostic fs suite, unconfined and
// confined to the workspace.
func TestConformance(t *testing.T) {
	for name, confine := range map[string]bool{"unconfined": false, "confined": true} {
		t.Run(name, func(t *testing.T) {
			fsapitest.Run(t, func(t *testing.T) (fsapi.FileSystem, string) {
				dir, err := filepath.EvalSymlinks(t.TempDir())
				require.NoError(t, err)
				cfg := fslocal.Config{Cwd: dir}
				if confine {
					cfg.Root = dir
				}
				p, err := fslocal.New(cfg)
				require.NoError(t, err)
				t.Cleanup(func() { p.Close() })
				return p, dir
			})
		})
	}
}
