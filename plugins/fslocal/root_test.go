package fslocal_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// jail is a confined workspace W with an outside directory O holding a
// secret file, a subdirectory, a file to nest under, and a link loop.
type jail struct {
	*workspace
	out string
}

func newJail(t *testing.T) *jail {
	t.Helper()
	w := newWorkspace(t, confined)
	out, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(out, "secret.txt"), []byte("secret"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(out, "dir"), 0o755))
	require.NoError(t, os.Symlink("loop", filepath.Join(out, "loop")))
	return &jail{workspace: w, out: out}
}

// outside returns O joined with rel.
func (j *jail) outside(rel string) string { return filepath.Join(j.out, rel) }

func outsideMsg(display string) string {
	return `cannot resolve "` + display + `": outside the workspace`
}

func TestConfinementRefusesOutsideLocations(t *testing.T) {
	j := newJail(t)
	j.file("real.txt", "inside", 0o644)
	j.symlink("out", j.out)
	j.symlink("out-rel", mustRel(t, j.dir, j.out))
	j.symlink("final", j.outside("secret.txt"))
	j.symlink("dangling-out", j.outside("nowhere.txt"))
	j.symlink("chain1", "chain2")
	j.symlink("chain2", j.outside("nowhere/deeper"))
	j.symlink("via-out", j.outside("dir")+"/../../"+filepath.Base(j.dir)+"/real.txt")
	tests := []struct {
		name string
		path string
		cwd  string
	}{
		{"dot-dot above the root", "../x.txt", ""},
		{"an absolute path outside", "/etc/passwd", ""},
		{"an absolute missing path outside", "/no/such/place.txt", ""},
		{"a symlinked directory leading out, existing file", "out/secret.txt", ""},
		{"a symlinked directory leading out, missing file", "out/new.txt", ""},
		{"a relative link leading out", "out-rel/secret.txt", ""},
		{"a symlink as the final component", "final", ""},
		{"a dangling link whose target is outside", "dangling-out", ""},
		{"a chain of links ending dangling outside", "chain1", ""},
		{"a link that leaves and comes back", "via-out", ""},
		{"a parent that is a file outside is refused, not ENOTDIR", j.outside("secret.txt/x"), ""},
		{"a loop outside is refused, not ELOOP", j.outside("loop"), ""},
		{"a path through a loop outside is refused", j.outside("loop/x"), ""},
		{"a relative path under a session cwd outside", "x.txt", j.out},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := j.p.Resolve(context.Background(), tc.path, fsapi.ResolveOptions{Cwd: tc.cwd})
			display := tc.path
			if !filepath.IsAbs(display) {
				base := j.dir
				if tc.cwd != "" {
					base = tc.cwd
				}
				display = filepath.Join(base, display)
			}
			assert.EqualError(t, err, outsideMsg(display))
			assertCode(t, fsapi.CodeSandboxDenied, err)
		})
	}
}

func TestConfinementAllowsInsideLocations(t *testing.T) {
	j := newJail(t)
	j.file("real.txt", "inside", 0o644)
	j.symlink("abs", j.path("real.txt"))
	j.symlink("back", "../"+filepath.Base(j.dir)+"/real.txt")
	j.symlink("dangling-in", j.path("nowhere.txt"))
	tests := []struct {
		name, path, key string
	}{
		{"the root itself", ".", j.dir},
		{"a file inside", "real.txt", j.path("real.txt")},
		{"a new file inside", "a/b/new.txt", j.path("a/b/new.txt")},
		{"an absolute link pointing inside", "abs", j.path("real.txt")},
		{"a link that steps up to the root's parent and back in", "back", j.path("real.txt")},
		{"a dangling absolute link pointing inside", "dangling-in", j.path("dangling-in")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := j.target(tc.path)
			assert.Equal(t, tc.key, tg.Key)
		})
	}
	ctx := context.Background()
	t.Run("operations work inside, through absolute links too", func(t *testing.T) {
		text, err := j.p.ReadText(ctx, j.target("abs"))
		require.NoError(t, err)
		assert.Equal(t, "inside", text)
		info, err := j.p.Stat(ctx, j.target("dangling-in"))
		require.NoError(t, err)
		assert.Nil(t, info, "a dangling absolute link inside is absent")
		_, err = j.p.WriteText(ctx, j.target("dangling-in"), "made", nil)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0), mode(t, j.path("dangling-in"))&os.ModeType, "the link became a file")
		assert.NoFileExists(t, j.path("nowhere.txt"))
		_, err = j.p.EditText(ctx, j.target("abs"), fsapi.EditRequest{OldString: "inside", NewString: "edited"}, nil)
		require.NoError(t, err)
		assert.Equal(t, "edited", j.content("real.txt"))
		_, err = j.p.WriteText(ctx, j.target("a/b/new.txt"), "n", nil)
		require.NoError(t, err)
		assert.Equal(t, "n", j.content("a/b/new.txt"))
	})
}

func TestConfinementReachedThroughASymlinkedAncestor(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root := filepath.Join(base, "root")
	require.NoError(t, os.Mkdir(root, 0o755))
	require.NoError(t, os.Symlink("root", filepath.Join(base, "alias")))
	p, err := fslocal.New(fslocal.Config{Cwd: filepath.Join(base, "alias"), Root: filepath.Join(base, "alias")})
	require.NoError(t, err, "a cwd spelled through a link to the root is inside")
	defer p.Close()
	assert.Equal(t, root, p.Root(), "the root is canonical")
	tg, err := p.Resolve(context.Background(), "x.txt", fsapi.ResolveOptions{})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(base, "alias/x.txt"), tg.DisplayPath)
	assert.Equal(t, filepath.Join(root, "x.txt"), tg.Key)
	_, err = p.Resolve(context.Background(), "../secret", fsapi.ResolveOptions{})
	assert.EqualError(t, err, outsideMsg(filepath.Join(base, "secret")))
}

func TestConfinementLstat(t *testing.T) {
	j := newJail(t)
	j.symlink("final", j.outside("secret.txt"))
	j.symlink("out", j.out)
	info, err := j.p.Lstat(context.Background(), "final", fsapi.ResolveOptions{})
	require.NoError(t, err, "a link inside is examined, not followed")
	assert.Equal(t, fsapi.TypeSymlink, info.Type)
	info, err = j.p.Lstat(context.Background(), ".", fsapi.ResolveOptions{})
	require.NoError(t, err, "the root itself is inside")
	assert.Equal(t, fsapi.TypeDirectory, info.Type)
	for name, path := range map[string]string{
		"dot-dot above the root":                   "../x",
		"a name under a symlinked dir leading out": "out/secret.txt",
		"an absolute path outside":                 j.outside("secret.txt"),
		"the filesystem root":                      "/",
	} {
		t.Run(name+" is refused", func(t *testing.T) {
			_, err := j.p.Lstat(context.Background(), path, fsapi.ResolveOptions{})
			display := path
			if !filepath.IsAbs(path) {
				display = filepath.Join(j.dir, path)
			}
			assert.EqualError(t, err, outsideMsg(display))
			assertCode(t, fsapi.CodeSandboxDenied, err)
		})
	}
}

func TestConfinementListsOutsideChildrenAsOther(t *testing.T) {
	j := newJail(t)
	j.file("in.txt", "x", 0o644)
	j.symlink("out-dir", j.outside("dir"))
	j.symlink("out-file", j.outside("secret.txt"))
	j.symlink("out-dangling", j.outside("nowhere"))
	entries, err := j.p.ListDir(context.Background(), j.target("."))
	require.NoError(t, err)
	m := entryMap(entries)
	require.Len(t, m, 4)
	assert.Equal(t, fsapi.TypeFile, m["in.txt"].Type)
	for _, name := range []string{"out-dir", "out-file", "out-dangling"} {
		e := m[name]
		assert.Equal(t, fsapi.TypeOther, e.Type, name)
		assert.Empty(t, e.Version, name)
		assert.False(t, e.HasSize, name)
		assert.Equal(t, j.path(name), e.Target.Key, "%s keeps its own path as key", name)
	}
}

func TestConfinementSurvivesASymlinkSwappedInAfterResolve(t *testing.T) {
	ops := map[string]func(p *fslocal.Provider, tg fsapi.Target) error{
		"stat": func(p *fslocal.Provider, tg fsapi.Target) error {
			_, err := p.Stat(context.Background(), tg)
			return err
		},
		"read": func(p *fslocal.Provider, tg fsapi.Target) error {
			_, err := p.ReadText(context.Background(), tg)
			return err
		},
		"stream": func(p *fslocal.Provider, tg fsapi.Target) error {
			_, err := p.StreamText(context.Background(), tg)
			return err
		},
		"write": func(p *fslocal.Provider, tg fsapi.Target) error {
			_, err := p.WriteText(context.Background(), tg, "pwned", nil)
			return err
		},
		"create": func(p *fslocal.Provider, tg fsapi.Target) error {
			_, err := p.WriteText(context.Background(), fsapi.Target{Key: filepath.Dir(tg.Key) + "/new.txt", DisplayPath: tg.DisplayPath}, "pwned", nil)
			return err
		},
		"edit": func(p *fslocal.Provider, tg fsapi.Target) error {
			_, err := p.EditText(context.Background(), tg, fsapi.EditRequest{OldString: "secret", NewString: "pwned"}, nil)
			return err
		},
		"list": func(p *fslocal.Provider, tg fsapi.Target) error {
			_, err := p.ListDir(context.Background(), fsapi.Target{Key: filepath.Dir(tg.Key), DisplayPath: tg.DisplayPath})
			return err
		},
		"cheap list": func(p *fslocal.Provider, tg fsapi.Target) error {
			_, err := p.ListEntries(context.Background(), fsapi.Target{Key: filepath.Dir(tg.Key), DisplayPath: tg.DisplayPath}, fsapi.ListOptions{})
			return err
		},
	}
	links := map[string]func(j *jail) string{
		"an absolute link": func(j *jail) string { return j.out },
		"a relative link":  func(j *jail) string { return mustRel(t, j.dir, j.out) },
	}
	for lname, text := range links {
		for oname, op := range ops {
			t.Run(oname+" through "+lname, func(t *testing.T) {
				j := newJail(t)
				j.file("sub/secret.txt", "inside", 0o644)
				tg := j.target("sub/secret.txt")
				require.NoError(t, os.RemoveAll(j.path("sub")))
				j.symlink("sub", text(j))
				err := op(j.p, tg)
				assert.EqualError(t, err, outsideMsg(tg.DisplayPath))
				assertCode(t, fsapi.CodeSandboxDenied, err)
				assert.Equal(t, "secret", readFile(t, j.outside("secret.txt")), "nothing outside changed")
				assert.NoFileExists(t, j.outside("new.txt"))
				assert.Len(t, dirNames(t, j.out), 3, "nothing created outside")
				assert.Zero(t, j.p.LockCount())
			})
		}
	}
}

func mustRel(t *testing.T, base, target string) string {
	t.Helper()
	rel, err := filepath.Rel(base, target)
	require.NoError(t, err)
	return rel
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
