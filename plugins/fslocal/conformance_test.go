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
// confined to the workspace, each with the openat2 shortcut of ReadText and
// Open and with their os.Root path (as on a kernel without openat2).
func TestConformance(t *testing.T) {
	for _, raw := range []bool{true, false} {
		for name, confine := range map[string]bool{"unconfined": false, "confined": true} {
			if !raw {
				name += "-without-openat2"
			}
			t.Run(name, func(t *testing.T) {
				if !raw {
					t.Cleanup(fslocal.DisableOpenat2())
				}
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
}
