package auditlog_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/examples/auditlog"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
)

// logBuffer collects a host's log output; safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// count returns how many log lines contain s.
func (b *logBuffer) count(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.buf.String(), s)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newHost returns a test host whose logs go to a logBuffer.
func newHost(t *testing.T) (*host.Host, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	return hosttest.New(t, host.WithLogger(slog.New(slog.NewTextHandler(logs, nil)))), logs
}

// tempDir returns a fresh, symlink-free temporary directory.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

// readRecords parses the audit file, one Record per line.
func readRecords(t *testing.T, path string) []auditlog.Record {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	return parseRecords(t, f)
}

func parseRecords(t *testing.T, f *os.File) []auditlog.Record {
	t.Helper()
	var out []auditlog.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r auditlog.Record
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&r), "line %q", sc.Text())
		out = append(out, r)
	}
	require.NoError(t, sc.Err())
	return out
}
