package fslocal_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestEditTextCheckOrder(t *testing.T) {
	stale := &fsapi.EditGuard{Version: "1:2:3:4:5"}
	tests := []struct {
		name  string
		setup func(w *workspace) fsapi.Target
		ctx   context.Context
		req   fsapi.EditRequest
		guard *fsapi.EditGuard
		msg   string
		code  fsapi.Code
	}{
		{"a cancelled context aborts first", func(w *workspace) fsapi.Target { return w.target("missing") },
			cancelled(), fsapi.EditRequest{OldString: ""}, stale, "edit aborted", fsapi.CodeAborted},
		{"a missing file has changed since it was read, unguarded", func(w *workspace) fsapi.Target { return w.target("missing") },
			nil, fsapi.EditRequest{OldString: "a"}, nil, `cannot edit "%s": file changed since it was read`, fsapi.CodeStaleVersion},
		{"a missing file has changed since it was read, guarded", func(w *workspace) fsapi.Target { return w.target("missing") },
			nil, fsapi.EditRequest{OldString: "a"}, stale, `cannot edit "%s": file changed since it was read`, fsapi.CodeStaleVersion},
		{"a directory is not a regular file, before the guard", func(w *workspace) fsapi.Target { w.mkdir("d"); return w.target("d") },
			nil, fsapi.EditRequest{OldString: "a"}, stale, `cannot edit "%s": not a regular file`, fsapi.CodeNotRegularFile},
		{"a FIFO is not a regular file", func(w *workspace) fsapi.Target { w.fifo("p"); return w.target("p") },
			nil, fsapi.EditRequest{OldString: "a"}, nil, `cannot edit "%s": not a regular file`, fsapi.CodeNotRegularFile},
		{"a stale guard wins over binary content", func(w *workspace) fsapi.Target { w.file("f", "a\x00", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: "a"}, stale, `cannot edit "%s": file changed since it was read`, fsapi.CodeStaleVersion},
		{"a stale guard wins over a missing match", func(w *workspace) fsapi.Target { w.file("f", "abc", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: "zzz"}, stale, `cannot edit "%s": file changed since it was read`, fsapi.CodeStaleVersion},
		{"a stale guard wins over an ambiguous match", func(w *workspace) fsapi.Target { w.file("f", "aa", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: "a"}, stale, `cannot edit "%s": file changed since it was read`, fsapi.CodeStaleVersion},
		{"a NUL anywhere is binary, even past 8192 bytes", func(w *workspace) fsapi.Target {
			w.file("f", strings.Repeat("a", 10_000)+"\x00", 0o644)
			return w.target("f")
		}, nil, fsapi.EditRequest{OldString: "a"}, nil, `cannot edit "%s": binary file`, fsapi.CodeNotText},
		{"binary wins over invalid UTF-8", func(w *workspace) fsapi.Target { w.file("f", "\xff\x00", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: "a"}, nil, `cannot edit "%s": binary file`, fsapi.CodeNotText},
		{"invalid UTF-8 is refused", func(w *workspace) fsapi.Target { w.file("f", "a\xC0\xAF", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: "a"}, nil, `cannot edit "%s": invalid UTF-8 text`, fsapi.CodeNotText},
		{"invalid UTF-8 wins over an empty old string", func(w *workspace) fsapi.Target { w.file("f", "\xff", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: ""}, nil, `cannot edit "%s": invalid UTF-8 text`, fsapi.CodeNotText},
		{"an empty old string is refused", func(w *workspace) fsapi.Target { w.file("f", "abc", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: ""}, nil, "old_string must be a non-empty string", fsapi.CodeEditNotFound},
		{"an old string that is only a CR is not empty", func(w *workspace) fsapi.Target { w.file("f", "abc", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: "\r"}, nil, `old_string was not found in "%s"`, fsapi.CodeEditNotFound},
		{"no match is not found", func(w *workspace) fsapi.Target { w.file("f", "abc", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: "x"}, nil, `old_string was not found in "%s"`, fsapi.CodeEditNotFound},
		{"two matches without replace-all are ambiguous", func(w *workspace) fsapi.Target { w.file("f", "x1x", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: "x"}, nil, `old_string matched 2 times in "%s"; provide a more specific old_string or set replace_all to true`, fsapi.CodeAmbiguousEdit},
		{"overlapping matches count (D15): aa three times in aaaa", func(w *workspace) fsapi.Target { w.file("f", "aaaa", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: "aa"}, nil, `old_string matched 3 times in "%s"; provide a more specific old_string or set replace_all to true`, fsapi.CodeAmbiguousEdit},
		{"a block sharing a line with its repeat is ambiguous [D15]", func(w *workspace) fsapi.Target { w.file("f", "foo\nfoo\nfoo\n", 0o644); return w.target("f") },
			nil, fsapi.EditRequest{OldString: "foo\nfoo\n"}, nil, `old_string matched 2 times in "%s"; provide a more specific old_string or set replace_all to true`, fsapi.CodeAmbiguousEdit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			tg := tc.setup(w)
			before, _ := readRegular(tg.Key)
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			_, err := w.p.EditText(ctx, tg, tc.req, tc.guard)
			assert.EqualError(t, err, replaceP(tc.msg, tg.DisplayPath))
			assertCode(t, tc.code, err)
			after, _ := readRegular(tg.Key)
			assert.Equal(t, before, after, "the file is untouched")
			assert.Zero(t, w.p.LockCount())
		})
	}
}

func TestEditTextReplaces(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		req    fsapi.EditRequest
		want   string // bytes on disk
		before string // LF view before
		after  string // LF view after
	}{
		{"a single match is replaced", "hello world\n", fsapi.EditRequest{OldString: "world", NewString: "there"},
			"hello there\n", "hello world\n", "hello there\n"},
		{"ab occurs once in aab", "aab", fsapi.EditRequest{OldString: "ab", NewString: "c"}, "ac", "aab", "ac"},
		{"replace-all replaces every non-overlapping match", "aaaa", fsapi.EditRequest{OldString: "aa", NewString: "b", ReplaceAll: true},
			"bb", "aaaa", "bb"},
		{"replacement is literal: $& $1 $$ and backslashes", "x", fsapi.EditRequest{OldString: "x", NewString: `$&$1$$\1\\`},
			`$&$1$$\1\\`, "x", `$&$1$$\1\\`},
		{"a CRLF file gets CRLF in the inserted text", "a\r\nb\r\nc\r\n", fsapi.EditRequest{OldString: "b\n", NewString: "x\ny\n"},
			"a\r\nx\r\ny\r\nc\r\n", "a\nb\nc\n", "a\nx\ny\nc\n"},
		{"an old string with CRLF matches the LF view", "a\r\nb\r\n", fsapi.EditRequest{OldString: "a\r\nb", NewString: "z"},
			"z\r\n", "a\nb\n", "z\n"},
		{"untouched lines keep their endings in a mixed file", "a\r\nb\nc\r\nd\n", fsapi.EditRequest{OldString: "c", NewString: "C"},
			"a\r\nb\nC\r\nd\n", "a\nb\nc\nd\n", "a\nb\nC\nd\n"},
		{"a tie uses LF for inserted text", "a\r\nb\nc", fsapi.EditRequest{OldString: "c", NewString: "1\n2"},
			"a\r\nb\n1\n2", "a\nb\nc", "a\nb\n1\n2"},
		{"a lone CR in the file stays", "a\rb\r\nc\r\n", fsapi.EditRequest{OldString: "c", NewString: "d"},
			"a\rb\r\nd\r\n", "a\rb\nc\n", "a\rb\nd\n"},
		{"a lone CR in the new text stays in front of the pair", "a\r\nb\r\n", fsapi.EditRequest{OldString: "b", NewString: "x\ry\nz"},
			"a\r\nx\ry\r\nz\r\n", "a\nb\n", "a\nx\ry\nz\n"},
		{"the BOM is kept and not part of the views", "\xEF\xBB\xBFone two", fsapi.EditRequest{OldString: "two", NewString: "2"},
			"\xEF\xBB\xBFone 2", "one two", "one 2"},
		{"a missing final newline stays missing", "x\r\ny", fsapi.EditRequest{OldString: "y", NewString: "z"},
			"x\r\nz", "x\ny", "x\nz"},
		{"a match that ends in a pair consumes both bytes", "a\r\nb\r\nc", fsapi.EditRequest{OldString: "a\n", NewString: ""},
			"b\r\nc", "a\nb\nc", "b\nc"},
		{"a no-op edit still rewrites: old a CRLF, new a LF on an LF file", "a\nb", fsapi.EditRequest{OldString: "a\r\n", NewString: "a\n"},
			"a\nb", "a\nb", "a\nb"},
		{"dominance is counted over the whole file, not its start",
			"first\n" + strings.Repeat("x\n", 3000) + strings.Repeat("y\r\n", 3002), fsapi.EditRequest{OldString: "first", NewString: "1\n2"},
			"1\r\n2\n" + strings.Repeat("x\n", 3000) + strings.Repeat("y\r\n", 3002),
			"first\n" + strings.Repeat("x\n", 3000) + strings.Repeat("y\n", 3002),
			"1\n2\n" + strings.Repeat("x\n", 3000) + strings.Repeat("y\n", 3002)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			w.file("f.txt", tc.raw, 0o644)
			tg := w.target("f.txt")
			info, err := w.p.Stat(context.Background(), tg)
			require.NoError(t, err)
			out, err := w.p.EditText(context.Background(), tg, tc.req, &fsapi.EditGuard{Version: info.Version})
			require.NoError(t, err)
			assert.Equal(t, tc.want, w.content("f.txt"))
			assert.Equal(t, tc.before, out.Before)
			assert.Equal(t, tc.after, out.After)
			assert.NotEqual(t, info.Version, out.Version, "the file was rewritten")
			now, err := w.p.Stat(context.Background(), tg)
			require.NoError(t, err)
			assert.Equal(t, now.Version, out.Version)
		})
	}
}

func TestEditTextCommit(t *testing.T) {
	ctx := context.Background()
	t.Run("mode, owner and the symlink are kept", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("real.txt", "abc", 0o600)
		w.symlink("link", "real.txt")
		_, err := w.p.EditText(ctx, w.target("link"), fsapi.EditRequest{OldString: "b", NewString: "B"}, nil)
		require.NoError(t, err)
		assert.Equal(t, "aBc", w.content("real.txt"))
		assert.Equal(t, os.FileMode(0o600), mode(t, w.path("real.txt")))
		assert.Equal(t, os.ModeSymlink, mode(t, w.path("link"))&os.ModeType)
		assert.Equal(t, []string{"link", "real.txt"}, w.names("."))
	})
	t.Run("a hard-linked file is edited in place", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("a.txt", "abc", 0o644)
		require.NoError(t, os.Link(w.path("a.txt"), w.path("b.txt")))
		_, err := w.p.EditText(ctx, w.target("a.txt"), fsapi.EditRequest{OldString: "b", NewString: "B"}, nil)
		require.NoError(t, err)
		assert.Equal(t, "aBc", w.content("b.txt"))
	})
	t.Run("an abort at any check before the commit leaves the file as it was", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("f.txt", "one two", 0o644)
		tg := w.target("f.txt")
		aborted := 0
		for n := 0; ; n++ {
			_, err := w.p.EditText(newCountdown(n), tg, fsapi.EditRequest{OldString: "two", NewString: "2"}, nil)
			if err == nil {
				break
			}
			aborted++
			assert.EqualError(t, err, "edit aborted", "abort at check %d", n)
			assertCode(t, fsapi.CodeAborted, err)
			assert.Equal(t, "one two", w.content("f.txt"))
			assert.Equal(t, []string{"f.txt"}, w.names("."))
			assert.Zero(t, w.p.LockCount())
			require.Less(t, n, 20, "the edit never succeeded")
		}
		assert.GreaterOrEqual(t, aborted, 5, "entry, before read, read, commit, mkdir and rename checks")
		assert.Equal(t, "one 2", w.content("f.txt"))
	})
}
