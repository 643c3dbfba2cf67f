package protectedpaths_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/examples/protectedpaths"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
	"github.com/dsh-go/dsh/plugins/fspolicy"
	"github.com/dsh-go/dsh/plugins/toolfiles"
	"github.com/dsh-go/dsh/plugins/toolfs"
	"github.com/dsh-go/dsh/plugins/tools"
)

// tempDir returns a fresh, symlink-free temporary directory.
func tempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

// writeFile creates w/rel (and its directories) with text.
func writeFile(t *testing.T, w, rel, text string) {
	t.Helper()
	p := filepath.Join(w, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

// stack is the default filesystem stack plus protectedpaths on one host.
type stack struct {
	h   *host.Host
	reg *tools.Registry
	fs  fsapi.FileSystem
	w   string
}

// newStack mounts tools, fslocal (confined to w), fspolicy, toolfs and
// protectedpaths with paths. protectedpaths is mounted last, so only its
// Prepend puts it before fspolicy.
func newStack(t testing.TB, w string, paths ...string) *stack {
	t.Helper()
	h := hosttest.New(t)
	mount := func(p *host.Plugin, cfg any) {
		_, err := h.Plugin(t.Context(), p, cfg)
		require.NoError(t, err)
	}
	mount(tools.Plugin, nil)
	mount(fslocal.Plugin, fslocal.Config{Cwd: w, Root: w})
	mount(fspolicy.Plugin, nil)
	mount(toolfs.Plugin, nil)
	mount(toolfiles.Plugin, nil)
	mount(protectedpaths.Plugin, protectedpaths.Config{Paths: paths})
	require.NoError(t, h.Audit())
	return &stack{h: h, reg: tools.Key.Must(h.Root()), fs: fsapi.Key.Must(h.Root()), w: w}
}

// call runs one tool call in the session "s1".
func (s *stack) call(t *testing.T, tool string, args map[string]any) tools.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	return s.reg.Execute(context.Background(), tool, raw, &tools.Exec{Conv: &tools.Conversation{ID: "s1", Cwd: s.w}})
}
