package fslocal_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// collect concatenates a stream and checks every chunk is valid UTF-8; it
// returns the last error.
func collect(t *testing.T, seq func(func(string, error) bool)) (string, int, error) {
	t.Helper()
	var b strings.Builder
	chunks := 0
	for chunk, err := range seq {
		if err != nil {
			return b.String(), chunks, err
		}
		assert.True(t, utf8.ValidString(chunk), "chunk %d is valid UTF-8", chunks)
		b.WriteString(chunk)
		chunks++
	}
	return b.String(), chunks, nil
}

func TestStreamTextEqualsReadText(t *testing.T) {
	w := newWorkspace(t)
	for _, tc := range readCases {
		t.Run(tc.name, func(t *testing.T) {
			w.file("f.txt", tc.raw, 0o644)
			seq, err := w.p.StreamText(context.Background(), w.target("f.txt"))
			require.NoError(t, err)
			got, chunks, err := collect(t, seq)
			if tc.err != "" {
				assert.EqualError(t, err, strings.Replace(tc.err, "%s", w.path("f.txt"), 1))
				assertCode(t, tc.code, err)
				if len(tc.raw) <= 8192 {
					assert.Zero(t, chunks, "a short file that fails yields no chunk")
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.text, got)
		})
	}
}

func TestStreamBytesEqualsReadText(t *testing.T) {
	w := newWorkspace(t)
	for _, tc := range readCases {
		t.Run(tc.name, func(t *testing.T) {
			w.file("f.txt", tc.raw, 0o644)
			seq, err := w.p.StreamBytes(context.Background(), w.target("f.txt"))
			require.NoError(t, err)
			var b strings.Builder
			for chunk, err := range seq {
				if err != nil {
					require.NotEmpty(t, tc.err, "unexpected %v", err)
					assert.EqualError(t, err, strings.Replace(tc.err, "%s", w.path("f.txt"), 1))
					assertCode(t, tc.code, err)
					return
				}
				assert.True(t, utf8.Valid(chunk))
				b.Write(chunk) // copies: the chunk is reused by the next step
			}
			require.Empty(t, tc.err, "the error was not reported")
			assert.Equal(t, tc.text, b.String())
		})
	}
	_, err := w.p.StreamBytes(context.Background(), w.target("missing"))
	assert.EqualError(t, err, `cannot read "`+w.path("missing")+`": not found`)
}

// largeText is 9 MiB of CRLF lines mixing 1- to 4-byte characters after a
// BOM: large enough for several reads of the window and units of the rest.
func largeText() string {
	var b strings.Builder
	b.WriteString("\uFEFF")
	for i := 0; b.Len() < 9<<20; i++ {
		b.WriteString("ligne é€😀 ")
		b.WriteString(strings.Repeat("x", i%13))
		b.WriteString("\r\n")
	}
	return b.String()
}

// A file large enough to be streamed through memory mappings (Linux) gives
// the same text as ReadText.
func TestStreamBytesOfALargeFileEqualsReadText(t *testing.T) {
	w := newWorkspace(t)
	w.file("big.txt", largeText(), 0o644)
	want, err := w.p.ReadText(context.Background(), w.target("big.txt"))
	require.NoError(t, err)
	seq, err := w.p.StreamBytes(context.Background(), w.target("big.txt"))
	require.NoError(t, err)
	var got strings.Builder
	for chunk, err := range seq {
		require.NoError(t, err)
		got.Write(chunk)
	}
	assert.Equal(t, len(want), got.Len())
	assert.True(t, want == got.String(), "the streamed text equals ReadText's")
}

func TestStreamTextRefusesBeforeTheFirstChunk(t *testing.T) {
	w := newWorkspace(t)
	w.mkdir("d")
	_, err := w.p.StreamText(context.Background(), w.target("missing"))
	assert.EqualError(t, err, `cannot read "`+w.path("missing")+`": not found`)
	_, err = w.p.StreamText(context.Background(), w.target("d"))
	assert.EqualError(t, err, `cannot read "`+w.path("d")+`": not a regular file`)
	_, err = w.p.StreamText(cancelled(), w.target("d"))
	assert.EqualError(t, err, "read aborted")
}

func TestStreamTextAbortsMidStream(t *testing.T) {
	w := newWorkspace(t)
	w.file("big.txt", strings.Repeat("0123456789abcdef", 64<<10), 0o644) // 1 MiB, many chunks
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seq, err := w.p.StreamText(ctx, w.target("big.txt"))
	require.NoError(t, err)
	chunks := 0
	var last error
	for _, err := range seq {
		if err != nil {
			last = err
			break
		}
		chunks++
		if chunks == 2 {
			cancel()
		}
	}
	assert.Equal(t, 2, chunks, "no chunk after the abort")
	assert.EqualError(t, last, "read aborted")
	assertCode(t, fsapi.CodeAborted, last)
	assert.ErrorIs(t, last, context.Canceled)
}

func TestStreamTextStopsEarlyAndRestarts(t *testing.T) {
	w := newWorkspace(t)
	text := strings.Repeat("line of text\n", 20_000)
	w.file("f.txt", text, 0o644)
	seq, err := w.p.StreamText(context.Background(), w.target("f.txt"))
	require.NoError(t, err)
	for range seq {
		break
	}
	got, chunks, err := collect(t, seq)
	require.NoError(t, err)
	assert.Equal(t, text, got, "a second iteration reads the file afresh")
	assert.Greater(t, chunks, 1)
}

func TestStreamFallsBackToReadTextWithoutTheCapability(t *testing.T) {
	w := newWorkspace(t)
	text := strings.Repeat("ß", 100_000)
	w.file("f.txt", "\xEF\xBB\xBF"+text, 0o644)
	tg := w.target("f.txt")
	streamed, err := fsapi.Stream(context.Background(), w.p, tg)
	require.NoError(t, err)
	got, _, err := collect(t, streamed)
	require.NoError(t, err)
	hidden, err := fsapi.Stream(context.Background(), coreOnly{w.p}, tg)
	require.NoError(t, err)
	whole, chunks, err := collect(t, hidden)
	require.NoError(t, err)
	assert.Equal(t, 1, chunks)
	assert.Equal(t, text, got)
	assert.Equal(t, got, whole)
}

// coreOnly hides every optional capability of a provider.
type coreOnly struct{ fsapi.FileSystem }
