package fslocal_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/plugins/fslocal"
)

func TestUseWorkspaceFillsOnlyUnsetKeys(t *testing.T) {
	tests := []struct {
		name      string
		cfg, want fslocal.Config
	}{
		{"both unset take the workspace", fslocal.Config{}, fslocal.Config{Cwd: "/w", Root: "/w"}},
		{"an explicit root of / turns confinement off", fslocal.Config{Root: "/"}, fslocal.Config{Cwd: "/w", Root: "/"}},
		{"an explicit cwd is kept", fslocal.Config{Cwd: "/w/sub"}, fslocal.Config{Cwd: "/w/sub", Root: "/w"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.UseWorkspace("/w")
			assert.Equal(t, tc.want, cfg)
		})
	}
}
