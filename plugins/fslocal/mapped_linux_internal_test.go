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

// streamFile runs a decoder over the file holding raw and returns the text,
// the chunks and the error. mapped chooses mapText, else decodeText.
func streamFile(t *testing.T, raw string, mapped bool, each func(i int)) (string, []string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(path, []byte(raw), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	seq := decodeText(context.Background(), f, "/f")
	if mapped {
		var ok bool
		seq, ok = mapText(context.Background(), f, int64(len(raw)), "/f")
		require.True(t, ok, "a regular file can be mapped")
	}
	var b strings.Builder
	var chunks []string
	for chunk, err := range seq {
		if err != nil {
			return b.String(), chunks, err
		}
		b.Write(chunk)
		chunks = append(chunks, string(chunk))
		if each != nil {
			each(len(chunks))
		}
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
			want, _, wantErr := streamFile(t, tc.raw, false, nil)
			got, chunks, err := streamFile(t, tc.raw, true, nil)
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

// A file truncated while it is mapped ends the stream with an error; the
// pages past the new end fault, and the process survives.
func TestMapTextSurvivesTruncation(t *testing.T) {
	raw := mixedText(2 * mapWindow)
	path := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(path, []byte(raw), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	seq, ok := mapText(context.Background(), f, int64(len(raw)), "/f")
	require.True(t, ok)
	chunks := 0
	var last error
	for _, err := range seq {
		if err != nil {
			last = err
			break
		}
		if chunks++; chunks == 1 {
			require.NoError(t, os.Truncate(path, 0))
		}
	}
	assert.ErrorIs(t, last, errChangedWhileRead)
	assert.Equal(t, 1, chunks, "nothing is yielded past the truncation")
}

// A cancelled context ends a mapped stream with FS_ABORTED.
func TestMapTextAbortsMidStream(t *testing.T) {
	raw := mixedText(mapWindow + 1000)
	path := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(path, []byte(raw), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seq, ok := mapText(ctx, f, int64(len(raw)), "/f")
	require.True(t, ok)
	chunks := 0
	var last error
	for _, err := range seq {
		if err != nil {
			last = err
			break
		}
		if chunks++; chunks == 3 {
			cancel()
		}
	}
	assert.EqualError(t, last, "read aborted")
	assert.Equal(t, 3, chunks)
}

// touched keeps the test's read of a chunk from being optimised away.
var touched int

// A consumer that touches a chunk after the file shrank under it panics on
// the iterating goroutine (a tool call's panic becomes its error result,
// host §3.3) instead of taking the process down with SIGBUS.
func TestMapTextConsumerFaultIsAPanic(t *testing.T) {
	raw := mixedText(mapWindow + 1000)
	path := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(path, []byte(raw), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	seq, ok := mapText(context.Background(), f, int64(len(raw)), "/f")
	require.True(t, ok)
	assert.Panics(t, func() {
		for chunk, err := range seq {
			require.NoError(t, err)
			require.NoError(t, os.Truncate(path, 0))
			touched += int(chunk[len(chunk)-1]) // the page is gone: a fault
		}
	})
}
