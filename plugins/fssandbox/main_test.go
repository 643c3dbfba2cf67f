package fssandbox_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/tools"
)

// box is the default stack with fssandbox (sandbox.md §7: fslocal confined
// to W, fssandbox, fspolicy unless bare, toolfs) and one session whose cwd
// is W.
type box struct {
	*stacktest.Stack
	session *tools.Conversation
}

// newBox mounts the stack on a fresh W; setup, if given, prepares W first
// (roots must exist when fssandbox loads) and may return cfg's overrides
// computed from W.
func newBox(t testing.TB, cfg map[string]any, bare bool, setup ...func(w string) map[string]any) *box {
	t.Helper()
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	if cfg == nil {
		cfg = map[string]any{}
	}
	for _, s := range setup {
		for k, v := range s(w) {
			cfg[k] = v
		}
	}
	st := stacktest.New(t, stacktest.Options{FSSandbox: cfg, NoPolicy: bare, W: w})
	return &box{Stack: st, session: st.Conversation("s1")}
}

// layout makes sandbox.md §7's files: a.txt, proj/p.txt, other/t.txt.
func (b *box) layout(t testing.TB) *box {
	t.Helper()
	b.file(t, "a.txt", "hello\n")
	b.file(t, "proj/p.txt", "in\n")
	b.file(t, "other/t.txt", "out\n")
	return b
}

func (b *box) file(t testing.TB, rel, text string) {
	t.Helper()
	p := filepath.Join(b.W, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

func (b *box) link(t testing.TB, rel, target string) {
	t.Helper()
	p := filepath.Join(b.W, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.Symlink(target, p))
}

// call runs one call in the box's session; args is a JSON object.
func (b *box) call(t testing.TB, tool, args string) tools.Result {
	t.Helper()
	return b.Registry.Execute(context.Background(), tool, json.RawMessage(args), &tools.Exec{Conv: b.session})
}

// write is `write {"file_path":p,"content":c}`.
func (b *box) write(t testing.TB, p, c string) tools.Result {
	t.Helper()
	args, err := json.Marshal(map[string]string{"file_path": p, "content": c})
	require.NoError(t, err)
	return b.call(t, "write", string(args))
}

// content returns the file's bytes, or "<absent>".
func (b *box) content(t testing.TB, rel string) string {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(b.W, rel))
	if os.IsNotExist(err) {
		return "<absent>"
	}
	require.NoError(t, err)
	return string(got)
}

// Refusal next steps (sandbox.md §3.4).
const (
	operatorRO    = ` — the sandbox mode is set by the operator; tell the user instead of retrying`
	operatorRoots = ` — write under a writable root instead; the sandbox mode is set by the operator`
)
