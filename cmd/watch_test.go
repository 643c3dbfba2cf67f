package cmd

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watched runs watchFile on path with a short quiet period; each call of
// changed is one value on the returned channel. Logs go to the buffer.
func watched(t *testing.T, path string) (<-chan struct{}, *logBuffer) {
	t.Helper()
	calls := make(chan struct{}, 64)
	var logs logBuffer
	stop, err := watchFile(t.Context(), path, 20*time.Millisecond, slog.New(slog.NewTextHandler(&logs, nil)), func() { calls <- struct{}{} })
	require.NoError(t, err)
	t.Cleanup(stop)
	return calls, &logs
}

// fired waits (bounded) for one call of changed, then drains any burst.
func fired(t *testing.T, calls <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-calls:
	case <-time.After(5 * time.Second):
		t.Fatalf("no reload after %s", what)
	}
	for {
		select {
		case <-calls:
		case <-time.After(100 * time.Millisecond):
			return
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

// TestTheWatchSurvivesItsDirectoryComingBack: the config directory removed
// and created again (a trial's `rm -rf conf; mkdir conf`) is watched again,
// logged, and every later change still reloads.
func TestTheWatchSurvivesItsDirectoryComingBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "conf")
	require.NoError(t, os.Mkdir(dir, 0o755))
	file := filepath.Join(dir, "dsh.yaml")
	write(t, file, "a: 1\n")
	calls, logs := watched(t, file)

	require.NoError(t, os.RemoveAll(dir))
	fired(t, calls, "the directory was removed")
	require.NoError(t, os.Mkdir(dir, 0o755))
	write(t, file, "a: 2\n")
	fired(t, calls, "the directory came back")
	write(t, file, "a: 3\n")
	fired(t, calls, "a later write")
	assert.Contains(t, logs.String(), "the config file's directory is gone")
	assert.Contains(t, logs.String(), "watching the config file's directory again")

	// Renamed away and back is the same.
	require.NoError(t, os.Rename(dir, dir+".old"))
	fired(t, calls, "the directory was renamed away")
	require.NoError(t, os.Rename(dir+".old", dir))
	fired(t, calls, "the directory was renamed back")
	write(t, file, "a: 4\n")
	fired(t, calls, "a write after the rename back")
}

// TestASymlinkedConfigIsWatchedThroughItsTarget: --config naming a symlink
// reloads when the target is edited in its own directory.
func TestASymlinkedConfigIsWatchedThroughItsTarget(t *testing.T) {
	real := filepath.Join(t.TempDir(), "real.yaml")
	write(t, real, "a: 1\n")
	link := filepath.Join(t.TempDir(), "dsh.yaml")
	require.NoError(t, os.Symlink(real, link))
	calls, _ := watched(t, link)
	write(t, real, "a: 2\n")
	fired(t, calls, "the target was written")
	require.NoError(t, os.WriteFile(real+".tmp", []byte("a: 3\n"), 0o644))
	require.NoError(t, os.Rename(real+".tmp", real))
	fired(t, calls, "the target was replaced by a rename")
}

// TestAKubernetesDataSwapReloads: a ConfigMap volume's layout
// (dsh.yaml -> ..data/dsh.yaml, ..data -> ..<timestamp>) updated the way
// the kubelet does it: a new timestamped directory, a new ..data symlink
// renamed over the old one, the old directory removed.
func TestAKubernetesDataSwapReloads(t *testing.T) {
	vol := t.TempDir()
	stamp := func(name, text string) {
		require.NoError(t, os.Mkdir(filepath.Join(vol, name), 0o755))
		write(t, filepath.Join(vol, name, "dsh.yaml"), text)
	}
	stamp("..2026_01", "a: 1\n")
	require.NoError(t, os.Symlink("..2026_01", filepath.Join(vol, "..data")))
	file := filepath.Join(vol, "dsh.yaml")
	require.NoError(t, os.Symlink("..data/dsh.yaml", file))
	calls, _ := watched(t, file)

	for i, next := range []string{"..2026_02", "..2026_03"} {
		stamp(next, "a: 2\n")
		require.NoError(t, os.Symlink(next, filepath.Join(vol, "..data_tmp")))
		require.NoError(t, os.Rename(filepath.Join(vol, "..data_tmp"), filepath.Join(vol, "..data")))
		prev := []string{"..2026_01", "..2026_02"}[i]
		require.NoError(t, os.RemoveAll(filepath.Join(vol, prev)))
		fired(t, calls, "the ..data swap to "+next)
	}
}

// TestStoppingDoesNotWaitOnAStuckReload: stop returns after watchStopWait
// even when a reload never returns.
func TestStoppingDoesNotWaitOnAStuckReload(t *testing.T) {
	defer func(d time.Duration) { watchStopWait = d }(watchStopWait)
	watchStopWait = 100 * time.Millisecond
	file := filepath.Join(t.TempDir(), "dsh.yaml")
	write(t, file, "a: 1\n")
	started, stuck := make(chan struct{}), make(chan struct{})
	defer close(stuck)
	stop, err := watchFile(t.Context(), file, 10*time.Millisecond, slog.New(slog.DiscardHandler), func() {
		close(started)
		<-stuck
	})
	require.NoError(t, err)
	write(t, file, "a: 2\n")
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("no reload")
	}
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("stop waited on the stuck reload")
	}
}
