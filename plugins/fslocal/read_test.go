package fslocal_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// readCases are shared by ReadText and StreamText: both must give the same
// text or the same error (contract §3.5).
var readCases = []struct {
	name string
	raw  string
	text string // expected text when err is empty
	err  string // expected message with %s for the display path
	code fsapi.Code
}{
	{name: "plain text is returned unchanged", raw: "hello\nworld", text: "hello\nworld"},
	{name: "CRLF and lone CR are not normalised", raw: "a\r\nb\rc\r\n", text: "a\r\nb\rc\r\n"},
	{name: "one leading BOM is removed", raw: "\xEF\xBB\xBFhi", text: "hi"},
	{name: "a second BOM is ordinary text", raw: "\xEF\xBB\xBF\xEF\xBB\xBFhi", text: "\uFEFFhi"},
	{name: "the empty file is the empty text", raw: "", text: ""},
	{name: "a NUL after byte 8192 passes through as U+0000", raw: strings.Repeat("x", 8192) + "\x00y", text: strings.Repeat("x", 8192) + "\x00y"},
	{name: "multi-byte text is kept", raw: "héllo wörld 😀 ∑", text: "héllo wörld 😀 ∑"},
	{name: "a NUL in the first byte is binary", raw: "\x00abc", err: `cannot read "%s": binary file`, code: fsapi.CodeNotText},
	{name: "a NUL at byte 8191 is binary", raw: strings.Repeat("x", 8191) + "\x00", err: `cannot read "%s": binary file`, code: fsapi.CodeNotText},
	{name: "binary wins over invalid UTF-8 before it", raw: "\xff\x00", err: `cannot read "%s": binary file`, code: fsapi.CodeNotText},
	{name: "a stray continuation byte is invalid UTF-8", raw: "ab\x80cd", err: `cannot read "%s": invalid UTF-8 text`, code: fsapi.CodeNotText},
	{name: "an encoded surrogate is invalid UTF-8", raw: "\xED\xA0\x80", err: `cannot read "%s": invalid UTF-8 text`, code: fsapi.CodeNotText},
	{name: "an overlong form is invalid UTF-8", raw: "\xC0\xAF", err: `cannot read "%s": invalid UTF-8 text`, code: fsapi.CodeNotText},
	{name: "a truncated sequence at the end is invalid UTF-8", raw: "abc\xE2\x82", err: `cannot read "%s": invalid UTF-8 text`, code: fsapi.CodeNotText},
	{name: "invalid UTF-8 far into a large file is found", raw: strings.Repeat("ab", 100_000) + "\xff", err: `cannot read "%s": invalid UTF-8 text`, code: fsapi.CodeNotText},
	{name: "text larger than one chunk is read whole", raw: strings.Repeat("é0123456789", 30_000), text: strings.Repeat("é0123456789", 30_000)},
}

func TestReadText(t *testing.T) {
	w := newWorkspace(t)
	for _, tc := range readCases {
		t.Run(tc.name, func(t *testing.T) {
			w.file("f.txt", tc.raw, 0o644)
			got, err := w.p.ReadText(context.Background(), w.target("f.txt"))
			if tc.err != "" {
				assert.EqualError(t, err, strings.Replace(tc.err, "%s", w.path("f.txt"), 1))
				assertCode(t, tc.code, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.text, got)
		})
	}
}

func TestReadTextRefusals(t *testing.T) {
	w := newWorkspace(t)
	w.mkdir("d")
	w.fifo("pipe")
	w.symlink("dangling", "nowhere")
	w.file("real.txt", "through the link", 0o644)
	w.symlink("link", "real.txt")
	tests := []struct {
		name, path, msg string
		code            fsapi.Code
	}{
		{"a missing file is not found", "missing.txt", `cannot read "%s": not found`, fsapi.CodeNotFound},
		{"a dangling link is not found", "dangling", `cannot read "%s": not found`, fsapi.CodeNotFound},
		{"a directory is not a regular file", "d", `cannot read "%s": not a regular file`, fsapi.CodeNotRegularFile},
		{"a FIFO is not a regular file and is never opened", "pipe", `cannot read "%s": not a regular file`, fsapi.CodeNotRegularFile},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.p.ReadText(context.Background(), w.target(tc.path))
			assert.EqualError(t, err, strings.Replace(tc.msg, "%s", w.path(tc.path), 1))
			assertCode(t, tc.code, err)
		})
	}
	t.Run("a symlink is followed", func(t *testing.T) {
		got, err := w.p.ReadText(context.Background(), w.target("link"))
		require.NoError(t, err)
		assert.Equal(t, "through the link", got)
	})
	t.Run("a cancelled context aborts", func(t *testing.T) {
		_, err := w.p.ReadText(cancelled(), w.target("real.txt"))
		assert.EqualError(t, err, "read aborted")
		assertCode(t, fsapi.CodeAborted, err)
		assert.ErrorIs(t, err, context.Canceled)
	})
}
