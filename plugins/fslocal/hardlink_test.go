package fslocal_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// TestConfinedHardLinkDoesNotReachOutside is contract §3.7 [D9+]: with confinement on and hardLinks unset, a name inside the
// workspace that is a hard link to a file outside cannot change the outside
// file, by write or by edit; with preserve set explicitly, it is rewritten in
// place.
func TestConfinedHardLinkDoesNotReachOutside(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T, hardLinks string) (*workspace, string) {
		outside, err := filepath.EvalSymlinks(t.TempDir())
		require.NoError(t, err)
		victim := filepath.Join(outside, "victim.txt")
		require.NoError(t, os.WriteFile(victim, []byte("secret\n"), 0o644))
		w := newWorkspace(t, confined, func(c *fslocalConfig) { c.HardLinks = hardLinks })
		require.NoError(t, os.Link(victim, w.path("hl.txt")))
		return w, victim
	}
	t.Run("edit", func(t *testing.T) {
		w, victim := setup(t, "")
		text, err := w.p.ReadText(ctx, w.target("hl.txt"))
		require.NoError(t, err)
		assert.Equal(t, "secret\n", text)
		_, err = w.p.EditText(ctx, w.target("hl.txt"), fsapi.EditRequest{OldString: "secret", NewString: "pwned"}, nil)
		require.NoError(t, err)
		assert.Equal(t, "pwned\n", w.content("hl.txt"))
		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, "secret\n", string(b), "the outside file is unchanged")
	})
	t.Run("write", func(t *testing.T) {
		w, victim := setup(t, "")
		_, err := w.p.WriteText(ctx, w.target("hl.txt"), "pwned\n", nil)
		require.NoError(t, err)
		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, "secret\n", string(b), "the outside file is unchanged")
	})
	t.Run("preserve set explicitly rewrites in place", func(t *testing.T) {
		w, victim := setup(t, "preserve")
		_, err := w.p.WriteText(ctx, w.target("hl.txt"), "shared\n", nil)
		require.NoError(t, err)
		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, "shared\n", string(b))
	})
}
