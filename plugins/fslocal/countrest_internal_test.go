package fslocal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// asciiLines is n bytes of 50-byte ASCII lines (the last one cut short).
func asciiLines(n int) []byte {
	line := strings.Repeat("abcdefghi ", 5)[:49] + "\n"
	return []byte(strings.Repeat(line, n/len(line)+1)[:n])
}

// put writes s over b at offset at (negative: from the end) and returns b.
func put(b []byte, at int, s string) []byte {
	if at < 0 {
		at += len(b)
	}
	copy(b[at:], s)
	return b
}

// stopAfter returns a consumer's stop rule: stop once n bytes or more have
// been taken (n < 0: never stop).
func stopAfter(n int) func(taken int) bool {
	return func(taken int) bool { return n >= 0 && taken >= n }
}

// mixedText is n bytes or more of lines mixing ASCII and 2-, 3- and 4-byte
// characters, so read and unit boundaries fall inside characters.
func mixedText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString("line é€😀 ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteByte('\n')
	}
	return b.String()
}

// openRaw writes raw to a file and returns it open (closed when the test
// ends) and its path.
func openRaw(t *testing.T, raw []byte) (*os.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f, path
}

// scanRaw scans a file holding raw with counting (scanOpen), under ctx,
// with a consumer that copies what it takes and stops when stop says so,
// with GOMAXPROCS set to procs. It returns the text taken, the counted rest
// and the error.
func scanRaw(t *testing.T, ctx context.Context, raw []byte, procs int, stop func(taken int) bool) (string, fsapi.TextRest, error) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	f, _ := openRaw(t, raw)
	var taken strings.Builder
	rest, err := scanOpen(ctx, f, int64(len(raw)), "/f", true, func(c []byte) bool {
		require.True(t, utf8.Valid(c), "a chunk is valid UTF-8")
		taken.Write(c)
		return !stop(taken.Len())
	})
	return taken.String(), rest, err
}

// restOf is what the rest after taken must count, from the raw bytes.
func restOf(raw []byte, taken string) fsapi.TextRest {
	skip := len(taken)
	if strings.HasPrefix(string(raw), "\xEF\xBB\xBF") {
		skip += 3
	}
	var want fsapi.TextRest
	want.Count(raw[skip:])
	return want
}

// The rest of a file is checked and counted in parallel units with
// the outcome of a sequential stream: the same counts, and invalid UTF-8
// found wherever it is, whatever falls on a unit boundary (contract §3.5,
// §6.7.3).
func TestCountRestEqualsTheSequentialOutcome(t *testing.T) {
	const u = countUnit
	size := 4*u + 1000
	tests := []struct {
		name  string
		raw   []byte
		valid bool
	}{
		{"ASCII lines ending with LF", put(asciiLines(size), -1, "\n"), true},
		{"a final line without LF", put(asciiLines(size), -1, "x"), true},
		{"4-byte characters across unit boundaries at every offset", put(put(put(asciiLines(size), u-1, "😀"), 2*u-2, "😀"), 3*u-3, "😀"), true},
		{"2- and 3-byte characters across unit boundaries", put(put(asciiLines(size), u-1, "é"), 3*u-2, "€"), true},
		{"a CRLF across a unit boundary", put(asciiLines(size), 2*u-1, "\r\n"), true},
		{"an LF on each side of a unit boundary", put(asciiLines(size), 2*u-1, "\n\n"), true},
		{"characters ending and starting at a unit boundary", put(put(asciiLines(size), u-4, "😀"), 2*u, "😀"), true},
		{"the last character starts in the unit before the last", put(asciiLines(4*u+1), 4*u-1, "é"), true},
		{"a 3-byte last character across the last boundary", put(asciiLines(4*u+2), 4*u-1, "€"), true},
		{"a rest shorter than one unit", asciiLines(countUnit/2 + 100), true},
		{"a file of exactly two units", asciiLines(2 * countUnit), true},
		{"a file shorter than one read", asciiLines(countChunk / 3), true},
		{"mixed characters across reads and units", []byte(mixedText(3*countUnit + 77)), true},
		{"mixed characters, then invalid UTF-8 in the last unit", []byte(mixedText(3*countUnit) + "\xFF"), false},
		{"a BOM, then text", put(asciiLines(size), 0, "\xEF\xBB\xBF"), true},
		{"invalid UTF-8 in the last unit only", put(asciiLines(size), -5, "\xFF"), false},
		{"invalid UTF-8 in the first unit of the rest only", put(asciiLines(size), 70_000, "\xC0\xAF"), false},
		{"a surrogate across a unit boundary", put(asciiLines(size), 3*u-1, "\xED\xA0\x80"), false},
		{"a sequence cut short before a unit boundary", put(asciiLines(size), 2*u-2, "\xE2\x82"), false},
		{"a lone continuation byte at a unit boundary", put(asciiLines(size), u, "\x80"), false},
		{"four continuation bytes at a unit boundary", put(asciiLines(size), 3*u, "\x80\x80\x80\x80"), false},
		{"four continuation bytes before a unit boundary", put(asciiLines(size), 3*u-2, "\x80\x80\x80\x80"), false},
		{"a truncated sequence at the end of the file", put(asciiLines(size), -3, "\xF0\x9F\x98"), false},
		{"a lone continuation byte ending the file on a unit boundary", put(asciiLines(4*u+1), 4*u, "\x80"), false},
	}
	for _, tc := range tests {
		body := tc.raw
		if strings.HasPrefix(string(body), "\xEF\xBB\xBF") {
			body = body[3:]
		}
		require.Equal(t, tc.valid, utf8.Valid(body), "%s: the case is built as intended", tc.name)
		for _, procs := range []int{1, 4} {
			for _, stop := range []int{1, chunkSize + 10, countUnit + 10} {
				name := tc.name + "/procs " + strconv.Itoa(procs) + "/stop at " + strconv.Itoa(stop)
				t.Run(name, func(t *testing.T) {
					taken, rest, err := scanRaw(t, context.Background(), tc.raw, procs, stopAfter(stop))
					if !tc.valid {
						assert.EqualError(t, err, `cannot read "/f": invalid UTF-8 text`)
						return
					}
					require.NoError(t, err)
					assert.Equal(t, restOf(tc.raw, taken), rest)
					assert.Equal(t, string(body[:len(taken)]), taken, "the consumer took the text's start")
				})
			}
		}
	}
}

// A consumer that stops on the last chunk, or never stops, leaves an empty
// rest; nothing is counted twice.
func TestCountRestOfNothing(t *testing.T) {
	raw := put(asciiLines(2*countUnit+7), -1, "x")
	taken, rest, err := scanRaw(t, context.Background(), raw, 2, stopAfter(len(raw)))
	require.NoError(t, err)
	assert.Equal(t, string(raw), taken)
	assert.Equal(t, fsapi.TextRest{}, rest, "stopped on the last chunk")

	taken, rest, err = scanRaw(t, context.Background(), raw, 2, stopAfter(-1))
	require.NoError(t, err)
	assert.Equal(t, string(raw), taken)
	assert.Equal(t, fsapi.TextRest{}, rest, "never stopped")
}

// A file truncated before its rest is counted fails the scan with
// errChangedWhileRead, whichever unit's read finds the new end.
func TestCountRestFindsTruncation(t *testing.T) {
	for _, newSize := range []int64{0, 2*countUnit + 100, 3 * countUnit, 5*countUnit - 1} {
		t.Run("truncated to "+strconv.FormatInt(newSize, 10), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
			raw := asciiLines(5 * countUnit)
			f, path := openRaw(t, raw)
			_, err := scanOpen(context.Background(), f, int64(len(raw)), "/f", true, func([]byte) bool {
				require.NoError(t, os.Truncate(path, newSize))
				return false
			})
			assert.ErrorIs(t, err, errChangedWhileRead)
		})
	}
}

// A context cancelled before the rest is counted ends the count with
// FS_ABORTED `read aborted`.
func TestCountRestAborts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	raw := asciiLines(5 * countUnit)
	f, _ := openRaw(t, raw)
	_, err := scanOpen(ctx, f, int64(len(raw)), "/f", true, func([]byte) bool {
		cancel()
		return false
	})
	assert.EqualError(t, err, "read aborted")
	assert.True(t, errors.Is(err, context.Canceled))
	var fe *fsapi.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, fsapi.CodeAborted, fe.Code)
}

// charStart moves over at most three continuation bytes, and stops at the
// end of the bytes.
func TestCharStart(t *testing.T) {
	tests := []struct {
		b    string
		i    int
		want int
		ok   bool
	}{
		{"abc", 1, 1, true},
		{"a\x80\x80\x80b", 1, 4, true},
		{"a\x80\x80\x80\x80b", 1, 0, false},
		{"a\x80\x80", 1, 3, true},
		{"abc", 3, 3, true},
		{"😀", 1, 4, true},
	}
	for _, tc := range tests {
		got, ok := charStart([]byte(tc.b), tc.i)
		assert.Equal(t, tc.ok, ok, "%q at %d", tc.b, tc.i)
		if tc.ok {
			assert.Equal(t, tc.want, got, "%q at %d", tc.b, tc.i)
		}
	}
}

// The caller never waits for a helper goroutine the system does not run: it
// checks the helper's unit itself and returns the exact count while the
// helper is still held; the helper, released later, changes nothing.
func TestCountRestDoesNotWaitForAHeldHelper(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the caller and one helper
	held, release, helperDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var returned atomic.Bool
	sawReturn := false
	helperUnits := 0
	old := unitHook
	unitHook = func(u int, caller bool) {
		if caller {
			<-held // the caller goes on once the helper holds a unit
			return
		}
		if helperUnits++; helperUnits == 1 {
			close(held)
			<-release
			sawReturn = returned.Load()
			close(helperDone)
		}
	}
	defer func() { unitHook = old }()
	raw := put(asciiLines(6*countUnit+123), 3*countUnit-1, "😀")
	taken, rest, err := scanRaw(t, context.Background(), raw, 2, stopAfter(1))
	returned.Store(true)
	close(release)
	<-helperDone
	assert.True(t, sawReturn, "the count returned while the helper held a unit")
	require.NoError(t, err)
	assert.Equal(t, restOf(raw, taken), rest)
	assert.Equal(t, 1, helperUnits, "the released helper takes no further unit")
}
