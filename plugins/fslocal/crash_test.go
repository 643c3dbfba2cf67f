package fslocal_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// The crash test re-executes the test binary as a child
// that rewrites one large file in a loop through the provider, and kills it
// with SIGKILL at a random moment.
const (
	crashChildEnv = "FSLOCAL_CRASH_CHILD" // the target path; set only in the child
	crashFromEnv  = "FSLOCAL_CRASH_FROM"  // the last version already on disk
	crashSize     = 2 << 20               // bytes per version
	crashRounds   = 100
)

// crashContent is version i of the file: a header naming i, then one
// letter repeated, so any mix of two versions is detectable.
func crashContent(i int) string {
	header := fmt.Sprintf("version %08d\n", i)
	return header + strings.Repeat(string(rune('a'+i%26)), crashSize-len(header))
}

// runCrashChild is the child: it announces "ready", then writes versions
// from+1, from+2, ... printing each number once WriteText has returned.
func runCrashChild() {
	path := os.Getenv(crashChildEnv)
	from, _ := strconv.Atoi(os.Getenv(crashFromEnv))
	p, err := fslocal.New(fslocal.Config{Cwd: filepath.Dir(path)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	tg, err := p.Resolve(ctx, path, fsapi.ResolveOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Fprintln(os.Stdout, "ready")
	for i := from + 1; ; i++ {
		if _, err := p.WriteText(ctx, tg, crashContent(i), nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stdout, i)
	}
}

// crashDir returns the directory of the crash test: on tmpfs (/dev/shm)
// when there is one, else a test temp dir. The test kills processes, not
// the machine: the page cache survives a SIGKILL, so what it proves (old or
// new content, never torn; no staging file after the next write) does not
// depend on fsync, whose cost on a shared disk would dominate its run time.
func crashDir(t *testing.T) string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		dir, err := os.MkdirTemp("/dev/shm", "fslocal-crash-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

func TestCrashDuringReplaceLeavesOldOrNewAndNoStagingFile(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process mid-write many times; CI runs it")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	w := newWorkspace(t, func(c *fslocal.Config) { c.Cwd = crashDir(t) })
	w.dir = w.p.Cwd()
	path := w.file("big.txt", crashContent(0), 0o644)
	tg := w.target("big.txt")
	t.Logf("directory %s", w.dir)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("seed %d", seed)

	var sawOld, sawNew, leftovers, writes int
	start := time.Now()
	last := 0 // the version on disk before the child starts
	for round := 0; round < crashRounds; round++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path, crashFromEnv+"="+strconv.Itoa(last))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())

		lines := bufio.NewScanner(out)
		require.True(t, lines.Scan(), "child did not start: %s", stderr.String())
		require.Equal(t, "ready", lines.Text())
		done := make(chan int)
		go func() {
			n := last
			for lines.Scan() {
				n, _ = strconv.Atoi(lines.Text())
			}
			done <- n
		}()
		time.Sleep(time.Duration(rng.IntN(60_000)) * time.Microsecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		completed := <-done
		err = cmd.Wait()
		require.Error(t, err, "the child must die by the signal")
		require.Empty(t, stderr.String(), "the child's writes must not fail")
		writes += completed - last

		got, err := os.ReadFile(path)
		require.NoError(t, err)
		switch string(got) {
		case crashContent(completed):
			sawOld++
		case crashContent(completed + 1):
			sawNew++
		default:
			require.Failf(t, "torn file", "round %d: file is neither version %d nor %d (%d bytes, starts %q)",
				round, completed, completed+1, len(got), got[:min(len(got), 16)])
		}
		if len(w.names("")) > 1 {
			leftovers++
		}

		// The next clean write sweeps whatever the killed child left.
		last = completed + 2
		_, err = w.p.WriteText(context.Background(), tg, crashContent(last), nil)
		require.NoError(t, err)
		assert.Equal(t, []string{"big.txt"}, w.names(""), "round %d: a staging file remains after a clean write", round)
		require.Equal(t, crashContent(last), w.content("big.txt"))
	}
	t.Logf("%d kills of a child replacing a %d-byte file: %d left the old content, %d the new, never torn; "+
		"%d writes completed in all; %d kills left a staging file, all swept by the next write; %s",
		crashRounds, crashSize, sawOld, sawNew, writes, leftovers, time.Since(start).Round(time.Millisecond))
	assert.Equal(t, crashRounds, sawOld+sawNew)
	assert.Zero(t, w.p.LockCount())
}
