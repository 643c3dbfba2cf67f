package fslocal_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestInsertTextWritesWholeLines(t *testing.T) {
	// editor.md §2.1 and the insert examples of §15 X9.
	tests := []struct {
		name, raw string
		line      int64
		text      string
		want      string
	}{
		{"after line 1", "one\ntwo\nthree\n", 1, "between", "one\nbetween\ntwo\nthree\n"},
		{"before the first line", "one\ntwo", 0, "zero", "zero\none\ntwo"},
		{"after the last line keeps no final break", "one\ntwo", 2, "three", "one\ntwo\nthree"},
		{"after the empty last line of a file that ends with a break", "one\n", 2, "three", "one\n\nthree"},
		{"before that empty last line", "one\n", 1, "two", "one\ntwo\n"},
		{"into an empty file at 0", "", 0, "X", "X\n"},
		{"into an empty file at 1", "", 1, "X", "\nX"},
		{"a final break in the text adds an empty line", "x\n", 1, "a\nb\n", "x\na\nb\n\n"},
		{"an empty text inserts one empty line", "a\nb", 1, "", "a\n\nb"},
		{"CRLF-dominant files get CRLF lines", "a\r\nb\r\n", 1, "x\ny", "a\r\nx\r\ny\r\nb\r\n"},
		{"LF-dominant files get LF, other endings stay", "a\r\nb\nc\n", 1, "x", "a\r\nx\nb\nc\n"},
		{"CRLF in the text is read as LF", "a\nb", 1, "x\r\ny", "a\nx\ny\nb"},
		{"a lone CR in the text stays", "a\nb", 1, "x\ry", "a\nx\ry\nb"},
		{"the BOM stays in front", "\xEF\xBB\xBFa\n", 0, "top", "\xEF\xBB\xBFtop\na\n"},
		{"a lone CR in the file does not end a line", "a\rb\nc", 1, "x", "a\rb\nx\nc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			w.file("f.txt", tc.raw, 0o640)
			tg := w.target("f.txt")
			info, err := w.p.Stat(context.Background(), tg)
			require.NoError(t, err)
			out, err := w.p.InsertText(context.Background(), tg, fsapi.InsertRequest{Line: tc.line, Text: tc.text}, &fsapi.EditGuard{Version: info.Version})
			require.NoError(t, err)
			assert.Equal(t, tc.want, w.content("f.txt"))
			assert.Equal(t, 0o640, int(mode(t, w.path("f.txt")).Perm()), "the mode is kept")
			now, err := w.p.Stat(context.Background(), tg)
			require.NoError(t, err)
			assert.Equal(t, now.Version, out.Version)
			assert.NotEqual(t, info.Version, out.Version)
		})
	}
}

func TestInsertTextRefusals(t *testing.T) {
	stale := &fsapi.EditGuard{Version: "1:2:3:4:5"}
	tests := []struct {
		name  string
		setup func(w *workspace) fsapi.Target
		line  int64
		guard *fsapi.EditGuard
		msg   string
		code  fsapi.Code
	}{
		{"a missing file changed since it was read", func(w *workspace) fsapi.Target { return w.target("missing") },
			0, nil, `cannot edit "%s": file changed since it was read`, fsapi.CodeStaleVersion},
		{"a FIFO is not a regular file", func(w *workspace) fsapi.Target { w.fifo("p"); return w.target("p") },
			0, nil, `cannot edit "%s": not a regular file`, fsapi.CodeNotRegularFile},
		{"a stale guard wins over the line range", func(w *workspace) fsapi.Target { w.file("f", "a\n", 0o644); return w.target("f") },
			9, stale, `cannot edit "%s": file changed since it was read`, fsapi.CodeStaleVersion},
		{"binary content", func(w *workspace) fsapi.Target { w.file("f", "a\x00", 0o644); return w.target("f") },
			0, nil, `cannot edit "%s": binary file`, fsapi.CodeNotText},
		{"a line past the count", func(w *workspace) fsapi.Target { w.file("f", "a\nb\n", 0o644); return w.target("f") },
			4, nil, `cannot insert into "%s": line 4 is out of range (3 lines)`, fsapi.CodeNotFound},
		{"a negative line", func(w *workspace) fsapi.Target { w.file("f", "a", 0o644); return w.target("f") },
			-1, nil, `cannot insert into "%s": line -1 is out of range (1 lines)`, fsapi.CodeNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			tg := tc.setup(w)
			before, _ := readRegular(w.path("f"))
			_, err := w.p.InsertText(context.Background(), tg, fsapi.InsertRequest{Line: tc.line, Text: "x"}, tc.guard)
			var fe *fsapi.Error
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.code, fe.Code)
			assert.Equal(t, replaceP(tc.msg, tg.DisplayPath), err.Error())
			after, _ := readRegular(w.path("f"))
			assert.Equal(t, before, after, "nothing is written")
		})
	}
	t.Run("the range error carries the line and the count", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("f", "a\nb\n", 0o644)
		_, err := w.p.InsertText(context.Background(), w.target("f"), fsapi.InsertRequest{Line: 7}, nil)
		var lr *fsapi.LineRangeError
		require.ErrorAs(t, err, &lr)
		assert.Equal(t, fsapi.LineRangeError{Line: 7, Lines: 3}, *lr)
	})
	t.Run("a cancelled context aborts", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("f", "a", 0o644)
		_, err := w.p.InsertText(cancelled(), w.target("f"), fsapi.InsertRequest{Line: 0}, nil)
		assert.EqualError(t, err, "edit aborted")
		assert.Equal(t, "a", w.content("f"))
	})
}

func TestEditTextAmbiguityCarriesMatchLines(t *testing.T) {
	w := newWorkspace(t)
	w.file("f", "alpha\r\nbeta\nmiddle\nalpha\nbeta", 0o644)
	_, err := w.p.EditText(context.Background(), w.target("f"), fsapi.EditRequest{OldString: "alpha\r\nbeta"}, nil)
	var ml *fsapi.MatchLines
	require.ErrorAs(t, err, &ml)
	assert.Equal(t, fsapi.MatchLines{Count: 2, Lines: []int{1, 4}}, *ml)
	assert.Equal(t, replaceP(`old_string matched 2 times in "%s"; provide a more specific old_string or set replace_all to true`, w.target("f").DisplayPath), err.Error(), "the message is unchanged")
}
