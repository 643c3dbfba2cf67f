package fslocal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mixedText is n bytes or more of lines mixing ASCII and 2-, 3- and 4-byte
// characters, so window and chunk boundaries fall inside characters.
func mixedText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString("line é€😀 ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteByte('\n')
	}
	return b.String()
}

// streamFile runs mapping.scan over a file holding raw (mapped), else decodeText
// over raw, and returns the text, the chunks and the error.
func streamFile(t *testing.T, raw string, mapped bool) (string, []string, error) {
	t.Helper()
	var seq func(func([]byte, error) bool)
	if mapped {
		seq, _ = mapStream(t, context.Background(), raw)
	} else {
		seq = decodeText(context.Background(), strings.NewReader(raw), "/f")
	}
	var b strings.Builder
	var chunks []string
	for chunk, err := range seq {
		if err != nil {
			return b.String(), chunks, err
		}
		b.Write(chunk)
		chunks = append(chunks, string(chunk))
	}
	return b.String(), chunks, nil
}

// The mapped read gives what the buffered read gives, text or error, with
// windows and chunks cutting the text anywhere (contract §3.5).
func TestMapTextEqualsDecodeText(t *testing.T) {
	text := mixedText(2*mapWindow + 5000)
	// A 4-byte character across the first window's end.
	straddle := strings.Repeat("a", mapWindow-2) + "😀" + text
	tests := []struct{ name, raw string }{
		{"mixed text over three windows", text},
		{"a character across a window boundary", straddle},
		{"a BOM is removed once", "\xEF\xBB\xBF" + text},
		{"a NUL in the sniff window is binary", strings.Repeat("é", 4000) + "\x00" + text},
		{"a NUL past the sniff window is text", strings.Repeat("a", sniffLen) + "\x00" + text},
		{"invalid UTF-8 in a later window", text + "\xFF" + text},
		{"a surrogate across a window boundary", strings.Repeat("a", mapWindow-1) + "\xED\xA0\x80" + text},
		{"a truncated final sequence", text + "\xF0\x9F\x98"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, _, wantErr := streamFile(t, tc.raw, false)
			got, chunks, err := streamFile(t, tc.raw, true)
			if wantErr != nil {
				assert.EqualError(t, err, wantErr.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, got)
			for i, c := range chunks {
				assert.LessOrEqual(t, len(c), chunkSize, "chunk %d", i)
				assert.True(t, utf8.ValidString(c), "chunk %d is valid UTF-8", i)
			}
		})
	}
}

// mapRaw writes raw to a file and returns its mapping (the file is closed
// when the test ends) and its path.
func mapRaw(t *testing.T, raw string) (mapping, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(path, []byte(raw), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	m, ok := mapFile(f, int64(len(raw)), "/f")
	require.True(t, ok, "a regular file can be mapped")
	return m, path
}

// mapStream writes raw to a file and returns a mapped stream of it (under
// ctx), as StreamBytes presents mapping.scan, and the file's path.
func mapStream(t *testing.T, ctx context.Context, raw string) (func(func([]byte, error) bool), string) {
	t.Helper()
	m, path := mapRaw(t, raw)
	return scanSeq(func(consume func([]byte) bool) error {
		_, err := m.scan(ctx, false, consume)
		return err
	}), path
}

// chunksUntilError counts the chunks of seq, calling after(n) after the
// n-th, and returns the count and the error that ended the stream.
func chunksUntilError(seq func(func([]byte, error) bool), after func(n int)) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
		after(n)
	}
	return n, nil
}

// A file truncated while it is mapped ends the stream with an error; the
// pages past the new end fault, and the process survives.
func TestMapTextSurvivesTruncation(t *testing.T) {
	seq, path := mapStream(t, context.Background(), mixedText(2*mapWindow))
	chunks, err := chunksUntilError(seq, func(n int) {
		if n == 1 {
			require.NoError(t, os.Truncate(path, 0))
		}
	})
	assert.ErrorIs(t, err, errChangedWhileRead)
	assert.Equal(t, 1, chunks, "nothing is yielded past the truncation")
}

// A cancelled context ends a mapped stream with FS_ABORTED.
func TestMapTextAbortsMidStream(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seq, _ := mapStream(t, ctx, mixedText(mapWindow+1000))
	chunks, err := chunksUntilError(seq, func(n int) {
		if n == 3 {
			cancel()
		}
	})
	assert.EqualError(t, err, "read aborted")
	assert.Equal(t, 3, chunks)
}

// touched keeps the test's read of a chunk from being optimised away.
var touched int

// A consumer that touches a chunk after the file shrank under it panics on
// the iterating goroutine (a tool call's panic becomes its error result,
// host §3.3) instead of taking the process down with SIGBUS.
func TestMapTextConsumerFaultIsAPanic(t *testing.T) {
	seq, path := mapStream(t, context.Background(), mixedText(mapWindow+1000))
	assert.Panics(t, func() {
		for chunk, err := range seq {
			require.NoError(t, err)
			require.NoError(t, os.Truncate(path, 0))
			touched += int(chunk[len(chunk)-1]) // the page is gone: a fault
		}
	})
}
