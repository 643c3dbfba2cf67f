package fssandbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// projBox is workspace-write over W/proj with §7's layout, made before the
// sandbox loads; more runs on W first (links, files).
func projBox(t *testing.T, bare bool, more func(w string)) *box {
	t.Helper()
	return newBox(t, nil, bare, func(w string) map[string]any {
		for rel, text := range map[string]string{"a.txt": "hello\n", "proj/p.txt": "in\n", "other/t.txt": "out\n"} {
			p := filepath.Join(w, rel)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		}
		if more != nil {
			more(w)
		}
		return map[string]any{"workspace": filepath.Join(w, "proj")}
	})
}

func symlink(t *testing.T, target, at string) {
	t.Helper()
	require.NoError(t, os.Symlink(target, at))
}

// outside is the workspace-write refusal of a write to W/<rel> under roots
// W/proj, operator next step.
func outside(w, op, rel string) string {
	return `Error: cannot ` + op + ` "` + w + `/` + rel + `": the sandbox allows writes only under "` + w + `/proj"` + operatorRoots
}

// TestBoundaries walks each boundary of sandbox.md §3.3 with the real
// provider: the target is judged where the write lands.
func TestBoundaries(t *testing.T) {
	t.Run("a directory link inside the root that leads out is refused", func(t *testing.T) {
		// X-E5: W/proj/out -> ../other.
		b := projBox(t, false, func(w string) { symlink(t, "../other", filepath.Join(w, "proj/out")) })
		res := b.write(t, "proj/out/new.txt", "x")
		assert.Equal(t, outside(b.W, "write", "proj/out/new.txt"), res.Text())
		assert.Equal(t, "FS_SANDBOX_DENIED", res.Code())
		assert.Equal(t, "<absent>", b.content(t, "other/new.txt"))
		res = b.write(t, "proj/out/deeper/new.txt", "x")
		assert.True(t, res.IsError, "missing directories under the link are judged by the same real path")
		assert.NoDirExists(t, filepath.Join(b.W, "other/deeper"))
	})
	t.Run("a file link inside the root that leads out is refused, by read and edit too", func(t *testing.T) {
		b := projBox(t, false, func(w string) { symlink(t, "../other/t.txt", filepath.Join(w, "proj/t-link")) })
		res := b.call(t, "read", `{"file_path":"proj/t-link"}`)
		require.False(t, res.IsError, "reads are never restricted")
		res = b.call(t, "edit", `{"file_path":"proj/t-link","old_string":"out","new_string":"x"}`)
		assert.Equal(t, `Error: cannot edit "`+b.W+`/proj/t-link": the sandbox allows writes only under "`+b.W+`/proj"`+operatorRoots, res.Text())
		assert.Equal(t, "out\n", b.content(t, "other/t.txt"))
	})
	t.Run("a file link outside that leads into the root is allowed and writes through", func(t *testing.T) {
		// X-E5: W/other/in.txt -> ../proj/p.txt.
		b := projBox(t, false, func(w string) { symlink(t, "../proj/p.txt", filepath.Join(w, "other/in.txt")) })
		require.False(t, b.call(t, "read", `{"file_path":"other/in.txt"}`).IsError)
		res := b.write(t, "other/in.txt", "via link\n")
		assert.False(t, res.IsError, res.Text())
		assert.Equal(t, "via link\n", b.content(t, "proj/p.txt"))
		target, err := os.Readlink(filepath.Join(b.W, "other/in.txt"))
		require.NoError(t, err)
		assert.Equal(t, "../proj/p.txt", target, "still a link")
	})
	t.Run("a directory link outside that leads into the root is allowed", func(t *testing.T) {
		b := projBox(t, false, func(w string) { symlink(t, "../proj", filepath.Join(w, "other/pdir")) })
		res := b.write(t, "other/pdir/new.txt", "x")
		assert.False(t, res.IsError, res.Text())
		assert.Equal(t, "x", b.content(t, "proj/new.txt"))
	})
	t.Run("a dangling link outside that points into the root is refused", func(t *testing.T) {
		// X-E13: the write would replace the link in W/other.
		b := projBox(t, false, func(w string) { symlink(t, "../proj/new.txt", filepath.Join(w, "other/dl")) })
		res := b.write(t, "other/dl", "x")
		assert.Equal(t, outside(b.W, "write", "other/dl"), res.Text())
		assert.Equal(t, "<absent>", b.content(t, "proj/new.txt"))
	})
	t.Run("a dangling link inside that points out is allowed and replaced", func(t *testing.T) {
		// X-E13, bare deployment: the provider replaces the link itself.
		b := projBox(t, true, func(w string) { symlink(t, "../other/new.txt", filepath.Join(w, "proj/dl")) })
		res := b.write(t, "proj/dl", "x")
		assert.False(t, res.IsError, res.Text())
		fi, err := os.Lstat(filepath.Join(b.W, "proj/dl"))
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular(), "the link was replaced by a regular file")
		assert.Equal(t, "<absent>", b.content(t, "other/new.txt"))
	})
	t.Run("`..` is collapsed before any symlink is followed", func(t *testing.T) {
		// X-E14: proj/out/../x.txt is proj/x.txt whatever out points to.
		b := projBox(t, false, func(w string) { symlink(t, "../other", filepath.Join(w, "proj/out")) })
		res := b.write(t, "proj/out/../x.txt", "x")
		assert.False(t, res.IsError, res.Text())
		assert.Equal(t, "x", b.content(t, "proj/x.txt"))
		assert.Equal(t, "<absent>", b.content(t, "x.txt"))
		res = b.write(t, "proj/../other/x.txt", "x")
		assert.Equal(t, outside(b.W, "write", "other/x.txt"), res.Text())
	})
	t.Run("containment is component-wise", func(t *testing.T) {
		b := projBox(t, false, nil)
		assert.Equal(t, outside(b.W, "write", "proj2/x.txt"), b.write(t, "proj2/x.txt", "x").Text())
		assert.Equal(t, outside(b.W, "write", "pro"), b.write(t, "pro", "x").Text())
		assert.False(t, b.write(t, "proj/sub/x.txt", "x").IsError, "missing directories inside are created")
		assert.Equal(t, "x", b.content(t, "proj/sub/x.txt"))
	})
	t.Run("hard links are judged by name", func(t *testing.T) {
		// sandbox.md §6 "Names, not inodes": a name inside the root is
		// writable whatever else links to its inode; a name outside is not.
		b := projBox(t, true, func(w string) {
			require.NoError(t, os.Link(filepath.Join(w, "other/t.txt"), filepath.Join(w, "proj/h.txt")))
			require.NoError(t, os.Link(filepath.Join(w, "proj/p.txt"), filepath.Join(w, "other/hp.txt")))
		})
		res := b.write(t, "other/hp.txt", "x")
		assert.Equal(t, outside(b.W, "write", "other/hp.txt"), res.Text(), "an outside name of an inside file is refused")
		assert.Equal(t, "in\n", b.content(t, "proj/p.txt"))
		res = b.write(t, "proj/h.txt", "via h\n")
		assert.False(t, res.IsError, "an inside name of an outside file is allowed: %s", res.Text())
		assert.Equal(t, "via h\n", b.content(t, "proj/h.txt"))
		// What happens to the outside name is the provider's hardLinks mode.
		want := "via h\n" // preserve: rewritten in place, every link sees it
		if fsapi.Key.Must(b.FS.Scope()).(*fslocal.Provider).HardLinks() == fslocal.HardLinksBreak {
			want = "out\n" // break: the inside name was detached
		}
		assert.Equal(t, want, b.content(t, "other/t.txt"))
	})
}

// TestTheWholeFilesystemAsARoot: with the root "/", every absolute real
// location is under the roots (sandbox.md §2.3); the confinement still
// refuses what lies outside W.
func TestTheWholeFilesystemAsARoot(t *testing.T) {
	b := newBox(t, map[string]any{"workspace": "/"}, false)
	assert.False(t, b.write(t, "x.txt", "x").IsError)
	res := b.write(t, "/etc/dsh-sandbox-x.txt", "x")
	assert.Equal(t, `Error: cannot resolve "/etc/dsh-sandbox-x.txt": outside the workspace`, res.Text())
}
