package fslocal_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// permChildEnv marks the unprivileged child run of TestPermissionDenied;
// permFixtureEnv names a directory, writable by the child, holding root's
// files root644.txt and root666.txt ("old").
const (
	permChildEnv   = "FSLOCAL_PERMISSION_CHILD"
	permFixtureEnv = "FSLOCAL_PERMISSION_FIXTURE"
)

// nobody is the uid and gid the child drops to.
const nobody = 65534

// permissionCases are the [D7] messages, which only an unprivileged process
// can meet (root bypasses permission bits).
var permissionCases = []struct {
	name string
	run  func(t *testing.T, w *workspace)
}{
	{"resolve through a directory without search permission", func(t *testing.T, w *workspace) {
		w.file("locked/x.txt", "x", 0o644)
		lock(t, w.path("locked"))
		_, err := w.p.Resolve(context.Background(), "locked/x.txt", fsapi.ResolveOptions{})
		assertDenied(t, err, `cannot resolve "%s": permission denied`, w.path("locked/x.txt"))
	}},
	{"stat of a target whose directory was locked", func(t *testing.T, w *workspace) {
		w.file("locked/x.txt", "x", 0o644)
		tg := w.target("locked/x.txt")
		lock(t, w.path("locked"))
		_, err := w.p.Stat(context.Background(), tg)
		assertDenied(t, err, `cannot stat "%s": permission denied`, tg.DisplayPath)
	}},
	{"lstat through a locked directory", func(t *testing.T, w *workspace) {
		w.file("locked/x.txt", "x", 0o644)
		lock(t, w.path("locked"))
		_, err := w.p.Lstat(context.Background(), "locked/x.txt", fsapi.ResolveOptions{})
		assertDenied(t, err, `cannot stat "%s": permission denied`, w.path("locked/x.txt"))
	}},
	{"read of an unreadable file", func(t *testing.T, w *workspace) {
		w.file("secret.txt", "s", 0o000)
		_, err := w.p.ReadText(context.Background(), w.target("secret.txt"))
		assertDenied(t, err, `cannot read "%s": permission denied`, w.path("secret.txt"))
	}},
	{"stream of an unreadable file yields the error", func(t *testing.T, w *workspace) {
		w.file("secret.txt", "s", 0o000)
		seq, err := w.p.StreamText(context.Background(), w.target("secret.txt"))
		require.NoError(t, err, "the stat checks pass")
		_, _, err = collect(t, seq)
		assertDenied(t, err, `cannot read "%s": permission denied`, w.path("secret.txt"))
	}},
	{"read of a target whose directory was locked", func(t *testing.T, w *workspace) {
		w.file("locked/x.txt", "x", 0o644)
		tg := w.target("locked/x.txt")
		lock(t, w.path("locked"))
		_, err := w.p.ReadText(context.Background(), tg)
		assertDenied(t, err, `cannot read "%s": permission denied`, tg.DisplayPath)
	}},
	{"list of an unreadable directory", func(t *testing.T, w *workspace) {
		w.file("noread/x.txt", "x", 0o644)
		restrict(t, w.path("noread"), 0o300)
		assertListsDenied(t, w, "noread")
	}},
	{"list of a directory that can be read but not searched", func(t *testing.T, w *workspace) {
		// ListDir opens "." inside it, which needs search permission; the
		// cheap listing must fail the same way on both of its paths.
		w.file("nosearch/x.txt", "x", 0o644)
		restrict(t, w.path("nosearch"), 0o644)
		assertListsDenied(t, w, "nosearch")
	}},
	{"list with an unreachable child lists it as other", func(t *testing.T, w *workspace) {
		w.file("locked/x.txt", "x", 0o644)
		w.symlink("d/link", "../locked/x.txt")
		w.file("d/ok.txt", "ok", 0o644)
		lock(t, w.path("locked"))
		entries, err := w.p.ListDir(context.Background(), w.target("d"))
		require.NoError(t, err)
		m := entryMap(entries)
		assert.Equal(t, fsapi.TypeOther, m["link"].Type)
		assert.Empty(t, m["link"].Version)
		assert.Equal(t, w.path("d/link"), m["link"].Target.Key)
		assert.Equal(t, fsapi.TypeFile, m["ok.txt"].Type)
	}},
	{"write over an unreadable file", func(t *testing.T, w *workspace) {
		w.file("secret.txt", "old", 0o000)
		_, err := w.p.WriteText(context.Background(), w.target("secret.txt"), "new", nil)
		assertDenied(t, err, `cannot write "%s": permission denied`, w.path("secret.txt"))
		require.NoError(t, os.Chmod(w.path("secret.txt"), 0o644))
		assert.Equal(t, "old", w.content("secret.txt"))
	}},
	{"write in a read-only directory", func(t *testing.T, w *workspace) {
		w.file("ro/f.txt", "old", 0o644)
		restrict(t, w.path("ro"), 0o555)
		_, err := w.p.WriteText(context.Background(), w.target("ro/f.txt"), "new", nil)
		assertDenied(t, err, `cannot write "%s": permission denied`, w.path("ro/f.txt"))
		assert.Equal(t, "old", w.content("ro/f.txt"))
		assert.Equal(t, []string{"f.txt"}, w.names("ro"))
	}},
	{"create of a new file in a read-only directory", func(t *testing.T, w *workspace) {
		w.mkdir("ro")
		restrict(t, w.path("ro"), 0o555)
		_, err := w.p.WriteText(context.Background(), w.target("ro/new.txt"), "new", nil)
		assertDenied(t, err, `cannot write "%s": permission denied`, w.path("ro/new.txt"))
		assert.Empty(t, w.names("ro"))
	}},
	{"create of missing parents in a read-only directory", func(t *testing.T, w *workspace) {
		w.mkdir("ro")
		restrict(t, w.path("ro"), 0o555)
		_, err := w.p.WriteText(context.Background(), w.target("ro/a/b.txt"), "new", nil)
		assertDenied(t, err, `cannot write "%s": permission denied`, w.path("ro/a/b.txt"))
	}},
	{"in-place write of a read-only hard-linked file", func(t *testing.T, w *workspace) {
		w.file("a.txt", "old", 0o444)
		require.NoError(t, os.Link(w.path("a.txt"), w.path("b.txt")))
		_, err := w.p.WriteText(context.Background(), w.target("a.txt"), "new", nil)
		assertDenied(t, err, `cannot write "%s": permission denied`, w.path("a.txt"))
		assert.Equal(t, "old", w.content("b.txt"))
	}},
	{"write over its own read-only file [D19]", func(t *testing.T, w *workspace) {
		w.file("ro.txt", "old", 0o444)
		_, err := w.p.WriteText(context.Background(), w.target("ro.txt"), "new", nil)
		assertDenied(t, err, `cannot write "%s": permission denied`, w.path("ro.txt"))
		_, err = w.p.EditText(context.Background(), w.target("ro.txt"), fsapi.EditRequest{OldString: "old", NewString: "new"}, nil)
		assertDenied(t, err, `cannot edit "%s": permission denied`, w.path("ro.txt"))
		assert.Equal(t, "old", w.content("ro.txt"))
		assert.Equal(t, os.FileMode(0o444), mode(t, w.path("ro.txt")))
		assert.Equal(t, []string{"ro.txt"}, w.names("."))
	}},
	{"replace of another user's files [D19]", func(t *testing.T, w *workspace) {
		fixture := os.Getenv(permFixtureEnv)
		require.NotEmpty(t, fixture, "the root parent prepares the other user's files")
		ctx := context.Background()
		p := newWorkspace(t, func(c *fslocalConfig) { c.Cwd = fixture }).p
		for name, code := range map[string]string{
			"root644.txt": "the process may not write it",
			"root666.txt": "the process may write it but cannot keep its owner",
		} {
			tg, err := p.Resolve(ctx, name, fsapi.ResolveOptions{})
			require.NoError(t, err)
			_, err = p.WriteText(ctx, tg, "new", nil)
			assertDenied(t, err, `cannot write "%s": permission denied`, tg.DisplayPath)
			_, err = p.EditText(ctx, tg, fsapi.EditRequest{OldString: "old", NewString: "new"}, nil)
			assertDenied(t, err, `cannot edit "%s": permission denied`, tg.DisplayPath)
			b, err := os.ReadFile(tg.Key)
			require.NoError(t, err)
			assert.Equal(t, "old", string(b), code)
			assert.Zero(t, statT(t, tg.Key).Uid, "%s: still root's", name)
		}
		ents, err := os.ReadDir(fixture)
		require.NoError(t, err)
		assert.Len(t, ents, 2, "nothing is left behind")
	}},
	{"edit of an unreadable file", func(t *testing.T, w *workspace) {
		w.file("secret.txt", "old", 0o000)
		_, err := w.p.EditText(context.Background(), w.target("secret.txt"), fsapi.EditRequest{OldString: "old", NewString: "new"}, nil)
		assertDenied(t, err, `cannot edit "%s": permission denied`, w.path("secret.txt"))
	}},
	{"edit in a read-only directory", func(t *testing.T, w *workspace) {
		w.file("ro/f.txt", "old", 0o644)
		restrict(t, w.path("ro"), 0o555)
		_, err := w.p.EditText(context.Background(), w.target("ro/f.txt"), fsapi.EditRequest{OldString: "old", NewString: "new"}, nil)
		assertDenied(t, err, `cannot edit "%s": permission denied`, w.path("ro/f.txt"))
		assert.Equal(t, "old", w.content("ro/f.txt"))
		assert.Equal(t, []string{"f.txt"}, w.names("ro"))
	}},
	{"walk of an unreadable root", func(t *testing.T, w *workspace) {
		w.file("noread/x.txt", "x", 0o644)
		restrict(t, w.path("noread"), 0o300)
		err := w.p.Walk(context.Background(), w.target("noread"), fsapi.WalkOptions{}, func(fsapi.WalkEntry) error { return nil })
		assertDenied(t, err, `cannot search "%s": permission denied`, w.path("noread"))
	}},
	{"walk past an unreadable directory reports it and goes on", func(t *testing.T, w *workspace) {
		w.file("a/noread/x.txt", "x", 0o644)
		w.file("b.txt", "b", 0o644)
		restrict(t, w.path("a/noread"), 0o000)
		var got []string
		var dirErr error
		err := w.p.Walk(context.Background(), w.target("."), fsapi.WalkOptions{}, func(e fsapi.WalkEntry) error {
			got = append(got, e.Path)
			if e.Path == "a/noread" && e.Opened {
				dirErr = e.Err
			}
			return nil
		})
		require.NoError(t, err)
		assert.Equal(t, []string{".", "a", "a", "a/noread", "a/noread", "b.txt"}, got, "no children of the unreadable one")
		assertDenied(t, dirErr, `cannot search "%s": permission denied`, w.path("a/noread"))
	}},
	{"open of an unreadable file", func(t *testing.T, w *workspace) {
		w.file("secret.txt", "s", 0o000)
		_, err := w.p.Open(context.Background(), w.target("secret.txt"))
		assertDenied(t, err, `cannot read "%s": permission denied`, w.path("secret.txt"))
	}},
	{"a directory that can be listed but not searched is unreadable in a walk", func(t *testing.T, w *workspace) {
		w.file("d/a.txt", "x", 0o644)
		w.file("e/b.txt", "x", 0o644)
		w.file("z.txt", "x", 0o644)
		require.NoError(t, os.Mkdir(w.path("empty"), 0o755))
		restrict(t, w.path("d"), 0o644)
		restrict(t, w.path("empty"), 0o644)
		vs, es, err := walkAll(t, w, ".", fsapi.WalkOptions{FileInfo: true})
		require.NoError(t, err)
		assert.Equal(t, []visit{
			{".", fsapi.TypeDirectory, true},
			{"d", fsapi.TypeDirectory, false},
			{"d", fsapi.TypeDirectory, true},
			{"e", fsapi.TypeDirectory, false},
			{"e", fsapi.TypeDirectory, true},
			{"e/b.txt", fsapi.TypeFile, false},
			{"empty", fsapi.TypeDirectory, false},
			{"empty", fsapi.TypeDirectory, true},
			{"z.txt", fsapi.TypeFile, false},
		}, vs, "d's names are listed but none can be reached; an empty one loses nothing")
		assertDenied(t, es[2].Err, `cannot search "%s": permission denied`, w.path("d"))
		assert.NoError(t, es[7].Err)
	}},
	{"a permission error outside the root is refused as outside", func(t *testing.T, w *workspace) {
		j := newJail(t)
		require.NoError(t, os.Mkdir(j.outside("locked"), 0o755))
		lock(t, j.outside("locked"))
		_, err := j.p.Resolve(context.Background(), j.outside("locked/x.txt"), fsapi.ResolveOptions{})
		assert.EqualError(t, err, outsideMsg(j.outside("locked/x.txt")))
		assertCode(t, fsapi.CodeSandboxDenied, err)
	}},
}

// TestPermissionDenied runs every [D7] case as an unprivileged user: in
// this process when it is not root, else in a copy of the test binary
// re-executed as uid/gid 65534, so it is never skipped.
func TestPermissionDenied(t *testing.T) {
	if os.Getenv(permChildEnv) != "" || os.Geteuid() != 0 {
		require.NotZero(t, os.Geteuid(), "these cases need an unprivileged user")
		for _, tc := range permissionCases {
			t.Run(tc.name, func(t *testing.T) {
				w := newWorkspace(t)
				tc.run(t, w)
				assert.Zero(t, w.p.LockCount())
			})
		}
		return
	}
	dir, err := os.MkdirTemp("", "fslocal-perm-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	exe := filepath.Join(dir, "fslocal.test")
	copyExecutable(t, exe)
	fixture := filepath.Join(dir, "foreign")
	require.NoError(t, os.Mkdir(fixture, 0o777))
	require.NoError(t, os.Chmod(fixture, 0o777))
	for name, mode := range map[string]os.FileMode{"root644.txt": 0o644, "root666.txt": 0o666} {
		require.NoError(t, os.WriteFile(filepath.Join(fixture, name), []byte("old"), mode))
		require.NoError(t, os.Chmod(filepath.Join(fixture, name), mode))
	}

	cmd := exec.Command(exe, "-test.run=^TestPermissionDenied$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), permChildEnv+"=1", permFixtureEnv+"="+fixture, "TMPDIR="+os.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	t.Logf("child as uid %d:\n%s", nobody, out)
	require.NoError(t, err, "the unprivileged run failed")
	assert.Equal(t, len(permissionCases), strings.Count(string(out), "--- PASS: TestPermissionDenied/"),
		"every case ran and passed in the child")
	assert.NotContains(t, string(out), "--- FAIL")
}

// copyExecutable copies the running test binary to dst with mode 0755.
func copyExecutable(t *testing.T, dst string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	src, err := os.Open(self)
	require.NoError(t, err)
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, src)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}

// lock removes every permission from the directory path.
func lock(t *testing.T, path string) { restrict(t, path, 0o000) }

// restrict sets the directory path's mode and restores 0755 when the test
// ends, so its temp dir can be removed.
func restrict(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.Chmod(path, mode))
	t.Cleanup(func() { os.Chmod(path, 0o755) })
}

// assertListsDenied checks that ListDir and both paths of ListEntries
// (openat2 and os.Root) fail on the directory rel with [D7]'s message.
func assertListsDenied(t *testing.T, w *workspace, rel string) {
	t.Helper()
	_, err := w.p.ListDir(context.Background(), w.target(rel))
	assertDenied(t, err, `cannot list "%s": permission denied`, w.path(rel))
	_, err = w.p.ListEntries(context.Background(), w.target(rel), fsapi.ListOptions{})
	assertDenied(t, err, `cannot list "%s": permission denied`, w.path(rel))
	defer fslocal.DisableOpenat2()()
	_, err = w.p.ListEntries(context.Background(), w.target(rel), fsapi.ListOptions{})
	assertDenied(t, err, `cannot list "%s": permission denied`, w.path(rel))
}

// assertDenied checks a [D7] message and code.
func assertDenied(t *testing.T, err error, msg, display string) {
	t.Helper()
	assert.EqualError(t, err, replaceP(msg, display))
	assertCode(t, fsapi.CodePermissionDenied, err)
	assert.ErrorIs(t, err, os.ErrPermission)
}
