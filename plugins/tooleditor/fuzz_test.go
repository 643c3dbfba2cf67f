package tooleditor_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const bom = "\xEF\xBB\xBF"

// fileOf builds a file's bytes from a fuzzed body: LFs become CRLF when
// crlf is set (bare LFs stay when the body already has CRLF), and a BOM
// goes first when bom is set.
func fileOf(body string, withBOM, crlf bool) string {
	if crlf {
		body = strings.ReplaceAll(body, "\n", "\r\n")
	}
	if withBOM {
		return bom + body
	}
	return body
}

// textual reports whether s can be a text file and a JSON string argument
// (valid UTF-8 without NUL).
func textual(s ...string) bool {
	for _, x := range s {
		if !utf8.ValidString(x) || strings.IndexByte(x, 0) >= 0 {
			return false
		}
	}
	return true
}

// FuzzInsertLine runs the insert command through the registry on a real
// file (bare deployment) at any insert_line, boundaries included, on files
// with CRLF, lone CRs and a BOM: the out-of-range message names the line
// and the count and leaves the file alone; otherwise the file is its old
// bytes with one run inserted where the model says (every untouched byte
// kept, the BOM first).
func FuzzInsertLine(f *testing.F) {
	for _, seed := range []struct {
		body      string
		bom, crlf bool
		line      int64
		ins       string
	}{
		{"one\ntwo\nthree\n", false, false, 1, "between"},
		{"a\nb\n", false, true, 1, "x\ny"},
		{"a\n", true, false, 0, "top"},
		{"a\nb\n", false, false, 4, "x"},
		{"a\nb\n", false, false, -1, "x"},
		{"a\nb\n", false, false, 3, "end"},
		{"", false, false, 0, ""},
		{"a\r\nb\nc\n", false, false, 1, "x"},
		{"a\rb", true, true, 2, "y\r"},
	} {
		f.Add(seed.body, seed.bom, seed.crlf, seed.line, seed.ins)
	}
	st := editorStack(f, true, nil)
	session := st.Conversation("fuzz")
	path := filepath.Join(st.W, "f.txt")
	f.Fuzz(func(t *testing.T, body string, withBOM, crlf bool, line int64, ins string) {
		if !textual(body, ins) {
			return
		}
		old := fileOf(body, withBOM, crlf)
		require.NoError(t, os.WriteFile(path, []byte(old), 0o644))
		args, _ := json.Marshal(map[string]any{"command": "insert", "path": "f.txt", "insert_line": line, "new_str": ins})
		res := editor(t, st, session, string(args))
		raw := strings.TrimPrefix(old, bom)
		n := int64(strings.Count(strings.ReplaceAll(raw, "\r\n", "\n"), "\n")) + 1
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		if line < 0 || line > n {
			assert.Equal(t, "Error: Invalid `insert_line` parameter: "+strconv.FormatInt(line, 10)+". It should be within the range of lines of the file: [0, "+strconv.FormatInt(n, 10)+"]", res.Text())
			assert.Equal(t, old, string(got), "nothing is written")
			return
		}
		require.False(t, res.IsError, res.Text())
		ending := "\n"
		if strings.Count(raw, "\r\n") > strings.Count(raw, "\n")-strings.Count(raw, "\r\n") {
			ending = "\r\n"
		}
		s := strings.ReplaceAll(strings.ReplaceAll(ins, "\r\n", "\n"), "\n", ending)
		at, run := len(raw), ending+s
		if line < n {
			at, run = 0, s+ending
			for _, piece := range strings.SplitAfter(raw, "\n")[:line] {
				at += len(piece)
			}
		}
		want := raw[:at] + run + raw[at:]
		if withBOM {
			want = bom + want
		}
		assert.Equal(t, want, string(got))
	})
}

// FuzzStrReplace runs str_replace through the registry on a real file with
// CRLF, lone CRs and a BOM: it succeeds exactly when old_str (CRLF read as
// LF) occurs once in the LF view, overlapping occurrences counted; then the
// file is its old bytes with exactly the matched raw span replaced by
// new_str in the dominant ending (the BOM and every other byte kept);
// otherwise the file is unchanged and the message is the editor's.
func FuzzStrReplace(f *testing.F) {
	for _, seed := range []struct {
		body      string
		bom, crlf bool
		old, new  string
	}{
		{"mode=DEBUG\nlevel=info\n", false, false, "DEBUG", "RELEASE"},
		{"one\ntwo\nthree\n", false, true, "one\ntwo", "1\n2"},
		{"ab\n", true, false, "a", "A"},
		{"alpha\r\nbeta\nmiddle\nalpha\nbeta", false, false, "alpha\r\nbeta", "x"},
		{"a\nb\nc\n", false, true, "b", "b1\nb2"},
		{"aaa\n", false, false, "aa", "b"},
		{"a\rb\n", true, true, "\r", "x"},
		{"x\n", false, false, "planet", "y"},
	} {
		f.Add(seed.body, seed.bom, seed.crlf, seed.old, seed.new)
	}
	st := editorStack(f, true, nil)
	session := st.Conversation("fuzz")
	path := filepath.Join(st.W, "f.txt")
	f.Fuzz(func(t *testing.T, body string, withBOM, crlf bool, old, replacement string) {
		if !textual(body, old, replacement) {
			return
		}
		before := fileOf(body, withBOM, crlf)
		require.NoError(t, os.WriteFile(path, []byte(before), 0o644))
		args, _ := json.Marshal(map[string]any{"command": "str_replace", "path": "f.txt", "old_str": old, "new_str": replacement})
		res := editor(t, st, session, string(args))
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		if old == "" {
			assert.Equal(t, "Error: Parameter `old_str` is empty for command: str_replace", res.Text())
			assert.Equal(t, before, string(got))
			return
		}
		raw := strings.TrimPrefix(before, bom)
		// The LF view and, for each view byte, where its raw bytes start
		// (an LF from a CRLF pair starts at the CR).
		var view strings.Builder
		var rawAt []int
		for i := 0; i < len(raw); i++ {
			rawAt = append(rawAt, i)
			if raw[i] == '\r' && i+1 < len(raw) && raw[i+1] == '\n' {
				i++
			}
			view.WriteByte(raw[i])
		}
		rawAt = append(rawAt, len(raw))
		v, o := view.String(), strings.ReplaceAll(old, "\r\n", "\n")
		var starts []int
		for i := 0; i+len(o) <= len(v); i++ {
			if v[i:i+len(o)] == o {
				starts = append(starts, i)
			}
		}
		switch len(starts) {
		case 0:
			assert.Equal(t, "Error: No replacement was performed, old_str `"+old+"` did not appear verbatim in "+path+".", res.Text())
			assert.Equal(t, before, string(got))
		case 1:
			require.False(t, res.IsError, res.Text())
			ending := "\n"
			if strings.Count(raw, "\r\n") > strings.Count(raw, "\n")-strings.Count(raw, "\r\n") {
				ending = "\r\n"
			}
			// The raw span runs from the match's first view byte to the
			// start of the view byte after it.
			from, to := rawAt[starts[0]], rawAt[starts[0]+len(o)]
			want := raw[:from] + strings.ReplaceAll(strings.ReplaceAll(replacement, "\r\n", "\n"), "\n", ending) + raw[to:]
			if withBOM {
				want = bom + want
			}
			assert.Equal(t, want, string(got))
		default:
			assert.True(t, strings.HasPrefix(res.Text(), "Error: No replacement was performed. Multiple occurrences of old_str `"+old+"` in lines ["), res.Text())
			assert.Equal(t, "FS_AMBIGUOUS_EDIT", res.Code())
			assert.Equal(t, before, string(got))
		}
	})
}
