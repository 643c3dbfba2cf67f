package fslocal_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// The cross-device tests need a second file system inside the workspace:
// the test binary re-executes itself in a private mount namespace
// (CLONE_NEWNS, as unshare -m) where it mounts a tmpfs on W/other. That
// needs root (CAP_SYS_ADMIN); elsewhere they skip.
const (
	crossDirEnv  = "FSLOCAL_CROSS_DIR"  // the workspace; set in the namespaced test process
	crossKillEnv = "FSLOCAL_CROSS_KILL" // the workspace; set in the child that is killed mid-move
	crossBigSize = 64 << 20             // bytes of the file the killed child moves
)

// TestMovesAcrossFileSystems: a move onto another file system copies the
// entry (a file keeps its bytes, bits and modification time; a directory
// its tree and links), publishes it without replacing and only then removes
// the source; an existing destination is refused with the source whole;
// and a process SIGKILLed anywhere in a cross-device move leaves the source
// or the destination whole, never a partial file under either name.
func TestMovesAcrossFileSystems(t *testing.T) {
	w := os.Getenv(crossDirEnv)
	if w == "" {
		if testing.Short() {
			t.Skip("re-executes the test binary in a mount namespace; CI runs it")
		}
		if os.Geteuid() != 0 {
			t.Skip("skipped: mounting a tmpfs in a private mount namespace (unshare -m) needs root")
		}
		dir, err := filepath.EvalSymlinks(t.TempDir())
		require.NoError(t, err)
		cmd := exec.Command(os.Args[0], "-test.run=^TestMovesAcrossFileSystems$", "-test.v")
		cmd.Env = append(os.Environ(), crossDirEnv+"="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
		out, err := cmd.CombinedOutput()
		if err != nil && strings.Contains(string(out), "skipped:") {
			t.Skip(string(out))
		}
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "--- PASS: TestMovesAcrossFileSystems", "%s", out)
		t.Logf("in the namespace:\n%s", out)
		return
	}
	other := filepath.Join(w, "other")
	require.NoError(t, os.MkdirAll(other, 0o755))
	if err := syscall.Mount("tmpfs", other, "tmpfs", 0, "size=256m"); err != nil {
		t.Skipf("skipped: cannot mount a tmpfs (%v)", err)
	}
	defer syscall.Unmount(other, syscall.MNT_DETACH)
	p, err := fslocal.New(fslocal.Config{Cwd: w, Root: w})
	require.NoError(t, err)
	defer p.Close()
	ctx := context.Background()
	entry := func(name string) (fsapi.Target, *fsapi.PathInfo) {
		tg, info, err := p.ResolveEntry(ctx, name, fsapi.ResolveOptions{})
		require.NoError(t, err)
		return tg, info
	}

	t.Run("a file keeps its bytes, bits and time", func(t *testing.T) {
		a := filepath.Join(w, "a.txt")
		require.NoError(t, os.WriteFile(a, []byte("across\n"), 0o640))
		mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		require.NoError(t, os.Chtimes(a, mtime, mtime))
		src, info := entry("a.txt")
		dst, _ := entry("other/a.txt")
		out, err := p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile, SourceGuard: &fsapi.RemoveGuard{Version: info.Version}})
		require.NoError(t, err)
		assert.True(t, out.CrossDevice)
		assert.NoFileExists(t, a)
		b, err := os.ReadFile(filepath.Join(other, "a.txt"))
		require.NoError(t, err)
		assert.Equal(t, "across\n", string(b))
		fi, err := os.Stat(filepath.Join(other, "a.txt"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
		assert.True(t, fi.ModTime().Equal(mtime))
		assert.Equal(t, []string{"a.txt"}, names(t, other), "no staging copy is left")
	})
	t.Run("a directory keeps its tree and its links", func(t *testing.T) {
		require.NoError(t, os.MkdirAll(filepath.Join(w, "d/sub"), 0o750))
		require.NoError(t, os.WriteFile(filepath.Join(w, "d/x.txt"), []byte("x"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(w, "d/sub/y.txt"), []byte("y"), 0o600))
		require.NoError(t, os.Symlink("x.txt", filepath.Join(w, "d/l")))
		src, _ := entry("d")
		dst, _ := entry("other/d")
		_, err := p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeDirectory})
		require.NoError(t, err)
		assert.NoDirExists(t, filepath.Join(w, "d"))
		b, err := os.ReadFile(filepath.Join(other, "d/sub/y.txt"))
		require.NoError(t, err)
		assert.Equal(t, "y", string(b))
		text, err := os.Readlink(filepath.Join(other, "d/l"))
		require.NoError(t, err)
		assert.Equal(t, "x.txt", text)
		fi, err := os.Stat(filepath.Join(other, "d/sub"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o750), fi.Mode().Perm())
	})
	t.Run("an existing destination is never replaced", func(t *testing.T) {
		require.NoError(t, os.WriteFile(filepath.Join(w, "s.txt"), []byte("mine"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(other, "s.txt"), []byte("theirs"), 0o644))
		src, _ := entry("s.txt")
		dst, _ := entry("other/s.txt")
		_, err := p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile})
		assert.Equal(t, fsapi.CodeAlreadyExists, code(t, err))
		b, err := os.ReadFile(filepath.Join(other, "s.txt"))
		require.NoError(t, err)
		assert.Equal(t, "theirs", string(b))
		assert.FileExists(t, filepath.Join(w, "s.txt"))
	})
	t.Run("SIGKILL mid-move leaves the source or the destination whole", func(t *testing.T) {
		big := bytes.Repeat([]byte("0123456789abcdef"), crossBigSize/16)
		sum := sha256.Sum256(big)
		whole := func(path string) (exists bool) {
			b, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				return false
			}
			require.NoError(t, err)
			require.Equal(t, sum, sha256.Sum256(b), "%s is whole", path)
			return true
		}
		seed := uint64(time.Now().UnixNano())
		rng := rand.New(rand.NewPCG(seed, 0))
		sawSource, sawDest := 0, 0
		for round := range 12 {
			src, dst := filepath.Join(w, "big"), filepath.Join(other, "big")
			os.Remove(dst)
			require.NoError(t, os.WriteFile(src, big, 0o644))
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), crossKillEnv+"="+w)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			time.Sleep(time.Duration(rng.IntN(150_000)) * time.Microsecond)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			s, d := whole(src), whole(dst)
			require.True(t, s || d, "round %d (seed %d): neither name holds the file; %s", round, seed, stderr.String())
			if s {
				sawSource++
			}
			if d {
				sawDest++
			}
			for _, n := range names(t, other) {
				if n != "big" {
					require.NoError(t, os.RemoveAll(filepath.Join(other, n)), "a staging copy the next write would sweep")
				}
			}
		}
		t.Logf("12 kills (seed %d): source whole %d times, destination whole %d times", seed, sawSource, sawDest)
	})
}

// runCrossKillChild moves W/big to W/other/big (another file system) and
// exits; the parent kills it somewhere along the way.
func runCrossKillChild() {
	w := os.Getenv(crossKillEnv)
	p, err := fslocal.New(fslocal.Config{Cwd: w, Root: w})
	if err == nil {
		ctx := context.Background()
		var src, dst fsapi.Target
		if src, _, err = p.ResolveEntry(ctx, "big", fsapi.ResolveOptions{}); err == nil {
			if dst, _, err = p.ResolveEntry(ctx, "other/big", fsapi.ResolveOptions{}); err == nil {
				_, err = p.Move(ctx, src, dst, fsapi.MoveRequest{SourceType: fsapi.TypeFile})
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}
