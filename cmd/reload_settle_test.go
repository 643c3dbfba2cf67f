package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// settle applies a file only once two reads at least reloadSettle apart
// agree: a writer that truncated the file and writes it 300 ms later (past
// the 200 ms quiet period) is seen whole; a file that never stops changing
// is not applied.
func TestSettleWaitsForTwoEqualReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var at []time.Duration
		file := func() ([]byte, error) {
			at = append(at, time.Since(start))
			if time.Since(start) < 300*time.Millisecond {
				return []byte{}, nil // truncated, not yet written
			}
			return []byte("plugins:\n  - name: fslocal\n"), nil
		}
		assert.True(t, settle(context.Background(), file, reloadSettle))
		assert.Equal(t, []time.Duration{0, reloadSettle, 2 * reloadSettle}, at, "the empty read and the full one differ: one more read")

		at, start = nil, time.Now()
		assert.True(t, settle(context.Background(), func() ([]byte, error) {
			at = append(at, time.Since(start))
			return nil, errors.New("gone")
		}, reloadSettle), "a steady error settles too (the load reports it)")
		assert.Len(t, at, 2)

		n := 0
		assert.False(t, settle(context.Background(), func() ([]byte, error) {
			n++
			return []byte{byte(n)}, nil
		}, reloadSettle), "never the same twice")
		assert.Equal(t, settleTries, n)

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.False(t, settle(ctx, file, reloadSettle))
	})
}

// A candidate that is empty, does not end with a newline or has no plugin
// entry is refused like a broken file, in the words of the decision, and
// the last good deployment keeps serving: `: > dsh.yaml` stopped every
// tool, and a copy cut short dropped toolfs and toolsearch.
func TestAnIncompleteFileIsARefusedReload(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false))
	require.NoError(t, os.WriteFile(filepath.Join(l.w, "a.txt"), []byte("hello\n"), 0o644))
	for _, tc := range []struct{ name, text, why string }{
		{"empty", "", "is empty"},
		{"white space", "\n  \n", "is empty"},
		{"cut short", "plugins:\n  - name: fslocal\n  - name: tool", "does not end with a newline (a partial write?)"},
		{"no plugin entry", "plugins: []\n", "has no plugin entry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l.write(tc.text)
			var rep reloadReport
			for rep = l.next(); rep.Err == nil || rep.Err.Error() != l.file+" "+tc.why; rep = l.next() {
			}
			f := <-l.failures
			for f.Err.Error() != rep.Err.Error() {
				f = <-l.failures
			}
			assert.Contains(t, l.logs.String(), `level=ERROR msg="config reload refused: `+l.file+" "+tc.why+`; still serving the last good deployment"`)
			assert.Equal(t, 100, l.readLimit(), "the last good deployment serves")
			text, isErr := l.call("read", map[string]any{"file_path": "a.txt"})
			assert.False(t, isErr, text)
		})
	}
}
