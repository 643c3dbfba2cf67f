package fssandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fssandbox"
)

func TestValidateReportsEveryIssueInKeyOrder(t *testing.T) {
	// sandbox.md §2.2: mode, then writableRoots, each with its key path.
	_, err := config.Decode(fssandbox.Plugin, map[string]any{"mode": "danger-full-access", "writableRoots": []any{"ok", " ", ""}})
	var ce *host.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []host.ConfigIssue{
		{Path: "mode", Problem: `fssandbox: mode must be "read-only", "workspace-write" or "full-access"`},
		{Path: "writableRoots[1]", Problem: "fssandbox: writableRoots[1] must be a non-empty string"},
		{Path: "writableRoots[2]", Problem: "fssandbox: writableRoots[2] must be a non-empty string"},
	}, ce.Issues)

	for _, bad := range []any{"", "READ-ONLY", "danger-full-access", "readonly"} {
		_, err := config.Decode(fssandbox.Plugin, map[string]any{"mode": bad})
		assert.ErrorContains(t, err, `fssandbox: mode must be`, "mode %q", bad)
	}
	_, err = config.Decode(fssandbox.Plugin, map[string]any{"sessionswitch": true})
	assert.ErrorContains(t, err, "unknown key")

	cfg, err := config.Decode(fssandbox.Plugin, nil)
	require.NoError(t, err)
	assert.Equal(t, fssandbox.Config{Mode: fssandbox.WorkspaceWrite}, cfg, "defaults: workspace-write, no roots, no switching")
}

// TestWrongTypesAreTheDecodersErrors: sandbox.md §2.2 "Wrong types are the
// strict decoder's errors", never Validate's wording for a bad value.
func TestWrongTypesAreTheDecodersErrors(t *testing.T) {
	for _, tc := range []struct {
		raw  map[string]any
		want host.ConfigIssue
	}{
		{map[string]any{"mode": 5}, host.ConfigIssue{Path: "mode", Problem: "expected a string, got 5"}},
		{map[string]any{"mode": []any{"a"}}, host.ConfigIssue{Path: "mode", Problem: "expected a string, got a list"}},
		{map[string]any{"writableRoots": []any{"ok", 1}}, host.ConfigIssue{Path: "writableRoots[1]", Problem: "expected a string, got 1"}},
		{map[string]any{"writableRoots": "x"}, host.ConfigIssue{Path: "writableRoots", Problem: `expected a list, got string "x"`}},
		{map[string]any{"sessionSwitch": "yes"}, host.ConfigIssue{Path: "sessionSwitch", Problem: `expected a boolean, got string "yes"`}},
	} {
		_, err := config.Decode(fssandbox.Plugin, tc.raw)
		var ce *host.ConfigError
		require.ErrorAs(t, err, &ce, "%v", tc.raw)
		assert.Equal(t, []host.ConfigIssue{tc.want}, ce.Issues, "%v", tc.raw)
	}
}

func TestUseWorkspace(t *testing.T) {
	c := fssandbox.Config{}
	c.UseWorkspace("/w")
	assert.Equal(t, "/w", c.Workspace, "unset: the deployment's workspace")
	c = fssandbox.Config{Workspace: "proj"}
	c.UseWorkspace("/w")
	assert.Equal(t, "/w/proj", c.Workspace, "relative: against the deployment's workspace")
	c = fssandbox.Config{Workspace: "/elsewhere"}
	c.UseWorkspace("/w")
	assert.Equal(t, "/elsewhere", c.Workspace)
}

func TestMissingRootsFailTheLoadBeforeAnyGuard(t *testing.T) {
	// sandbox.md §2.2: existence checks at the start of apply, every issue in
	// key order; the instance is FAILED and registered nothing.
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(w, "file"), nil, 0o644))
	h := host.New()
	defer h.Shutdown(context.Background())
	baseline := h.Counts()
	inst, err := h.Plugin(t.Context(), fssandbox.Plugin, fssandbox.Config{Mode: fssandbox.ReadOnly, Workspace: filepath.Join(w, "missing"), WritableRoots: []string{w, filepath.Join(w, "file"), "/nonexistent-dsh"}})
	require.NoError(t, err)
	assert.Equal(t, host.StateFailed, inst.State())
	assert.EqualError(t, joined(inst.Err()), "fssandbox: workspace must be an existing directory\n"+
		"fssandbox: writableRoots[1] must be an existing directory\n"+
		"fssandbox: writableRoots[2] must be an existing directory")
	assert.Equal(t, baseline.Listeners, h.Counts().Listeners, "no guard was registered")
}

// joined unwraps the host's wrapping of an apply error down to the joined
// errors of fssandbox.
func joined(err error) error {
	for err != nil {
		if _, ok := err.(interface{ Unwrap() []error }); ok {
			return err
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
	return err
}

func TestRootsAreCanonicalAndShownInOrder(t *testing.T) {
	// sandbox.md §2.3: workspace first, then the extra roots; relative
	// entries against the canonical workspace; symlinks resolved before the
	// `..` that follows them; duplicates dropped. The roots show in
	// sandbox_mode's report.
	b := newBox(t, map[string]any{"sessionSwitch": true}, false, func(w string) map[string]any {
		for _, d := range []string{"proj", "scratch", "deep/inner"} {
			require.NoError(t, os.MkdirAll(filepath.Join(w, d), 0o755))
		}
		require.NoError(t, os.Symlink("proj", filepath.Join(w, "plink")))
		require.NoError(t, os.Symlink("deep/inner", filepath.Join(w, "ilink")))
		return map[string]any{
			"workspace":     filepath.Join(w, "plink"),
			"writableRoots": []any{"../scratch", w + "/ilink/..", filepath.Join(w, "proj"), "../scratch/"},
		}
	})
	w := b.W
	res := b.call(t, "sandbox_mode", `{}`)
	require.False(t, res.IsError, res.Text())
	assert.Equal(t, `Sandbox mode: workspace-write (writes allowed under "`+w+`/proj", "`+w+`/scratch", "`+w+`/deep")`, res.Text())

	res = b.write(t, "deep/x.txt", "x")
	assert.False(t, res.IsError, "W/ilink/.. is W/deep, not W: %s", res.Text())
	res = b.write(t, "x.txt", "x")
	assert.Equal(t, `Error: cannot write "`+w+`/x.txt": the sandbox allows writes only under "`+w+`/proj", "`+w+`/scratch", "`+w+`/deep" — to proceed, call sandbox_mode with mode "full-access" and a justification (the user must approve), then retry`, res.Text())
}

func TestRootsShowInvalidUTF8AsReplacement(t *testing.T) {
	// sandbox.md §2.3, contract [D11]: one U+FFFD per invalid byte.
	b := newBox(t, nil, false, func(w string) map[string]any {
		require.NoError(t, os.Mkdir(filepath.Join(w, "p\xff\xfeq"), 0o755))
		return map[string]any{"workspace": "p\xff\xfeq"}
	})
	res := b.write(t, "x.txt", "x")
	assert.Equal(t, `Error: cannot write "`+b.W+`/x.txt": the sandbox allows writes only under "`+b.W+"/p\uFFFD\uFFFDq\""+operatorRoots, res.Text())
}
