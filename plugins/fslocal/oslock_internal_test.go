package fslocal

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// TestDirectoryLockHonoursCancellation: while another descriptor (as
// another process would) holds the directory lock, a write waits, and a
// cancellation while waiting is `write aborted` with nothing touched and
// the lock table empty (contract §3.9 [D18], §2.4). The wait polls flock
// on a timer, so it runs on synctest's clock: synctest.Wait says the write
// is waiting, and the timeouts pass without real time.
func TestDirectoryLockHonoursCancellation(t *testing.T) {
	synctest.Test(t, testDirectoryLockHonoursCancellation)
}

func testDirectoryLockHonoursCancellation(t *testing.T) {
	for _, confine := range []bool{false, true} {
		p, dir := provider(t, confine)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("old"), 0o644))
		d, err := os.Open(dir)
		require.NoError(t, err)
		require.NoError(t, flock(d, syscall.LOCK_EX))
		tg, err := p.Resolve(context.Background(), "f.txt", fsapi.ResolveOptions{})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err = p.WriteText(ctx, tg, "new", nil)
		cancel()
		assert.EqualError(t, err, "write aborted")
		ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err = p.EditText(ctx, tg, fsapi.EditRequest{OldString: "old", NewString: "new"}, nil)
		cancel()
		assert.EqualError(t, err, "edit aborted")
		assert.Zero(t, p.LockCount())
		b, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
		assert.Equal(t, "old", string(b))

		done := make(chan error, 1)
		go func() {
			_, err := p.WriteText(context.Background(), tg, "new", nil)
			done <- err
		}()
		time.Sleep(time.Minute) // on synctest's clock: a minute of polling
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("the write did not wait for the directory lock: %v", err)
		default:
		}
		d.Close() // drops the lock
		require.NoError(t, <-done)
		b, _ = os.ReadFile(filepath.Join(dir, "f.txt"))
		assert.Equal(t, "new", string(b))
	}
}

// TestExclusiveCreateNeverClobbers: a file that appears between the probe
// and the commit of a CreateIfAbsent write (another process, or any other
// program) is kept, and the write fails FS_NOT_OBSERVED (contract §3.9
// [D18]); nothing is left behind.
func TestExclusiveCreateNeverClobbers(t *testing.T) {
	for _, confine := range []bool{false, true} {
		p, dir := provider(t, confine)
		tg, err := p.Resolve(context.Background(), "f.txt", fsapi.ResolveOptions{})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(tg.Key, []byte("theirs"), 0o644))
		err = p.commit(context.Background(), tg, change{op: "write", data: "ours", exclusive: true})
		assert.EqualError(t, err, `cannot overwrite existing "`+tg.DisplayPath+`" without reading it first`)
		var fe *fsapi.Error
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, fsapi.CodeNotObserved, fe.Code)
		b, _ := os.ReadFile(tg.Key)
		assert.Equal(t, "theirs", string(b))
		ents, _ := os.ReadDir(dir)
		assert.Len(t, ents, 1, "no staging file is left")
	}
}

// provider returns a provider whose cwd is a fresh directory, confined to
// it or not.
func provider(t *testing.T, confine bool) (*Provider, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	cfg := Config{Cwd: dir}
	if confine {
		cfg.Root = dir
	}
	p, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return p, dir
}
