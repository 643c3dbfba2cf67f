package fslocal

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/eol"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestLiteralEditExamples(t *testing.T) {
	// Contract §7 E33 and E34, on the pure edit.
	tests := []struct {
		name, text, old, new string
		all                  bool
		want                 string
	}{
		{"replace_all replaces non-overlapping matches", "aaaa", "aa", "b", true, "bb"},
		{"the replacement is literal", "x", "x", "$&$1$$", false, "$&$1$$"},
		{"an untouched CRLF line keeps its ending", "a\r\nb\nc\n", "b", "B", false, "a\r\nB\nc\n"},
		{"inserted lines take the dominant CRLF", "a\r\nb\r\nc\n", "b", "b1\nb2", false, "a\r\nb1\r\nb2\r\nc\n"},
		{"a tie is LF", "a\r\nb\n", "a", "A", false, "A\r\nb\n"},
		{"a CRLF-spanning old string matches the LF view", "x\r\ny\r\n", "x\ny", "z", false, "z\r\n"},
		{"a lone CR stays", "a\rb\r\n", "b", "c", false, "a\rc\r\n"},
		{"a BOM is kept", "\ufeffab\n", "a", "A", false, "\ufeffAb\n"},
		{"no final newline stays so", "a\r\nb", "b", "B", false, "a\r\nB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, _, err := literalEdit(tc.text, fsapi.EditRequest{OldString: tc.old, NewString: tc.new, ReplaceAll: tc.all}, "/w/f")
			require.NoError(t, err)
			assert.Equal(t, tc.want, data)
		})
	}
}

// FuzzLiteralEdit checks the literal edit against independent models:
//   - it never panics, and fails only with the three documented errors;
//   - the number of matches is strings.Count over the LF view, and the
//     ambiguity error names it;
//   - a BOM is kept exactly when the text had one, and the result stays
//     valid UTF-8 when the text and both strings are (UTF-8 is
//     self-synchronising, so a valid old string only matches whole
//     characters; an invalid one, which JSON arguments never are, can match
//     inside one: seed 2b3b8a243a36ccd4);
//   - without lone CRs anywhere (in the text or the strings), the LF view of
//     the result is strings.Replace over the LF view;
//   - on LF-only text the result is byte for byte strings.Replace of the
//     raw text (no ending is touched).
func FuzzLiteralEdit(f *testing.F) {
	for _, seed := range []struct {
		text, old, new string
		all            bool
	}{
		{"hello world\n", "world", "there", false},
		{"a a a", "a", "b", true},
		{"a\r\nb\r\nc\n", "b", "b1\nb2", false},
		{"\ufeffx\r\ny\r\n", "x\ny", "z", false},
		{"a\rb\r\n", "b", "c", false},
		{"aaaa", "aa", "b", true},
		{"x\ny\n", "x", "p\r\nq", false},
	} {
		f.Add(seed.text, seed.old, seed.new, seed.all)
	}
	f.Fuzz(func(t *testing.T, text, old, new string, all bool) {
		req := fsapi.EditRequest{OldString: old, NewString: new, ReplaceAll: all}
		data, view, err := literalEdit(text, req, "/w/f")
		raw, bom := eol.StripBOM(text)
		lfView := eol.ToLF(raw)
		lfOld, lfNew := eol.ToLF(old), eol.ToLF(new)
		if err != nil {
			var fe *fsapi.Error
			if !errors.As(err, &fe) {
				t.Fatalf("uncoded error %v", err)
			}
			n := 0
			if lfOld != "" {
				n = strings.Count(lfView, lfOld)
				if !all {
					n = naiveOverlapping(lfView, lfOld)
				}
			}
			switch {
			case lfOld == "":
				assert.Equal(t, "old_string must be a non-empty string", err.Error())
			case n == 0:
				assert.Equal(t, fsapi.CodeEditNotFound, fe.Code)
			case n > 1 && !all:
				assert.Equal(t, fsapi.ErrAmbiguousEdit(n, "/w/f").Error(), err.Error())
			default:
				t.Fatalf("unexpected error %v with %d matches", err, n)
			}
			return
		}
		assert.Equal(t, lfView, view)
		n := strings.Count(lfView, lfOld)
		require.True(t, n == 1 || (n > 1 && all), "%d matches", n)
		if !all {
			require.Equal(t, 1, naiveOverlapping(lfView, lfOld), "a single edit is unique counting overlaps")
		}
		assert.Equal(t, bom, eol.HasBOM(data), "the BOM is kept exactly when there was one")
		if utf8.ValidString(text) && utf8.ValidString(old) && utf8.ValidString(new) {
			assert.True(t, utf8.ValidString(data))
		}
		limit := 1
		if all {
			limit = -1
		}
		if !strings.Contains(strings.ReplaceAll(raw, "\r\n", ""), "\r") && !strings.Contains(old+new, "\r") {
			got, _ := eol.StripBOM(data)
			assert.Equal(t, strings.Replace(lfView, lfOld, lfNew, limit), eol.ToLF(got), "LF view")
		}
		if !strings.Contains(raw+old+new, "\r") {
			got, _ := eol.StripBOM(data)
			assert.Equal(t, strings.Replace(raw, old, new, limit), got, "LF-only text is changed only where it matched")
		}
	})
}

// naiveOverlapping counts every occurrence of old in text by trying each
// offset: the quadratic model countOverlapping must agree with.
func naiveOverlapping(text, old string) int {
	n := 0
	for i := 0; i+len(old) <= len(text); i++ {
		if text[i:i+len(old)] == old {
			n++
		}
	}
	return n
}

func TestOverlappingOccurrencesCount(t *testing.T) {
	// Contract §3.8 step 7 and §7 E33 [D15], and issue 11 item 8.
	tests := []struct {
		text, old string
		want      int
	}{
		{"aaa", "aa", 2},
		{"aaaa", "aa", 3},
		{"foo\nfoo\nfoo\n", "foo\nfoo\n", 2},
		{"abababa", "aba", 3},
		{"abcabc", "abc", 2},
		{"abc", "abd", 0},
		{"aabaab", "aab", 2},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, countOverlapping(tc.text, tc.old, strings.Count(tc.text, tc.old)), "%q in %q", tc.old, tc.text)
		assert.Equal(t, tc.want, naiveOverlapping(tc.text, tc.old), "model: %q in %q", tc.old, tc.text)
	}
	_, _, err := literalEdit("foo\nfoo\nfoo\n", fsapi.EditRequest{OldString: "foo\nfoo\n", NewString: "x"}, "/w/f")
	assert.Equal(t, fsapi.ErrAmbiguousEdit(2, "/w/f").Error(), err.Error(), "a block sharing a line with its repeat is ambiguous")
	data, _, err := literalEdit("aaaa", fsapi.EditRequest{OldString: "aa", NewString: "b", ReplaceAll: true}, "/w/f")
	require.NoError(t, err)
	assert.Equal(t, "bb", data, "replace_all still replaces the non-overlapping spans")
}

func BenchmarkCountOverlappingIsLinear(b *testing.B) {
	text := strings.Repeat("a", 1<<20)
	old := strings.Repeat("a", 1<<10)
	for b.Loop() {
		countOverlapping(text, old, strings.Count(text, old))
	}
}
