package checkpoint

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheStoreLockWaitIsBounded: while another process holds the store's
// lock, a use of the store waits up to lockWait and fails with
// errLockWait, and the uses after it fail at once; once the other lets
// go, the lock is taken again.
func TestTheStoreLockWaitIsBounded(t *testing.T) {
	dir := t.TempDir()
	st := newStore(dir, 1<<30, time.Hour)
	_, _, err := st.snapshot() // creates the store and its lock file
	require.NoError(t, err)
	other, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, syscall.Flock(int(other.Fd()), syscall.LOCK_EX))

	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		_, _, err := st.snapshot()
		assert.ErrorIs(t, err, errLockWait)
		assert.ErrorContains(t, err, filepath.Join(dir, "lock"))
		waited := time.Since(start)
		assert.GreaterOrEqual(t, waited, lockWait)
		assert.Less(t, waited, lockWait+100*time.Millisecond)

		// While it stays held, the next uses fail at once: a queue of
		// steps does not wait lockWait each.
		start = time.Now()
		for range 3 {
			_, _, err = st.snapshot()
			assert.ErrorIs(t, err, errLockWait)
		}
		assert.Less(t, time.Since(start), time.Second)

		require.NoError(t, syscall.Flock(int(other.Fd()), syscall.LOCK_UN))
		_, _, err = st.snapshot()
		assert.NoError(t, err, "taken once the other lets go")

		// A wait that has not failed yet takes the lock when it is let go.
		require.NoError(t, syscall.Flock(int(other.Fd()), syscall.LOCK_EX))
		go func() {
			time.Sleep(3 * time.Second)
			_ = syscall.Flock(int(other.Fd()), syscall.LOCK_UN)
		}()
		start = time.Now()
		_, _, err = st.snapshot()
		assert.NoError(t, err)
		assert.Less(t, time.Since(start), 4*time.Second)
	})
}
