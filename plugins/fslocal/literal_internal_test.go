package fslocal

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestLiteralEditExamples(t *testing.T) {
	// Contract §7 E33 and E34, on the pure edit.
	tests := []struct {
		name, text, old, new string
		all                  bool
		want                 string
	}{
		{"a lone occurrence next to a near-miss is unique", "aab", "ab", "c", false, "ac"},
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
			data, _, _, err := literalEdit(tc.text, fsapi.EditRequest{OldString: tc.old, NewString: tc.new, ReplaceAll: tc.all}, "/w/f", 0)
			require.NoError(t, err)
			assert.Equal(t, tc.want, data)
		})
	}
}

// FuzzLiteralEdit checks the literal edit against independent models:
//   - it never panics, and fails only with the three documented errors;
//   - the number of matches is every occurrence over the LF view,
//     overlapping ones included ([D15], a naive count), or strings.Count
//     with replace_all; the ambiguity error names it and its MatchLines
//     cause holds the naive starting lines of the first 20;
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
		data, view, replaced, err := literalEdit(text, req, "/w/f", 0)
		raw, bom := stripBOM(text)
		lfView := toLF(raw)
		lfOld, lfNew := toLF(old), toLF(new)
		if err != nil {
			var fe *fsapi.Error
			if !errors.As(err, &fe) {
				t.Fatalf("uncoded error %v", err)
			}
			n := 0
			if lfOld != "" {
				n = countMatches(lfView, lfOld, all)
			}
			switch {
			case lfOld == "":
				assert.Equal(t, "old_string must be a non-empty string", err.Error())
			case n == 0:
				assert.Equal(t, fsapi.CodeEditNotFound, fe.Code)
				first, _, _ := strings.Cut(err.Error(), "\n")
				assert.Equal(t, fsapi.ErrEditNotFound("/w/f").Error(), first, "the first line is always the plain message")
				if nm := (*fsapi.NearMiss)(nil); errors.As(err, &nm) {
					lines := strings.Count(lfView, "\n") + 1
					assert.True(t, 1 <= nm.First && nm.First <= nm.Last && nm.Last <= lines, "lines %d-%d of %d", nm.First, nm.Last, lines)
					assert.Equal(t, min(nm.Last-nm.First+1, fsapi.NearMissMaxLines), len(nm.Lines))
				}
			case n > 1 && !all:
				assert.Equal(t, fsapi.ErrAmbiguousEdit(n, "/w/f").Error(), err.Error())
				var ml *fsapi.MatchLines
				require.ErrorAs(t, err, &ml)
				assert.Equal(t, naiveMatchLines(lfView, lfOld), ml.Lines)
			default:
				t.Fatalf("unexpected error %v with %d matches", err, n)
			}
			return
		}
		assert.Equal(t, lfView, view)
		n := countMatches(lfView, lfOld, all)
		require.True(t, n == 1 || (n > 1 && all), "%d matches", n)
		assert.Equal(t, n, replaced, "the spans replaced")
		assert.Equal(t, bom, hasBOM(data), "the BOM is kept exactly when there was one")
		if utf8.ValidString(text) && utf8.ValidString(old) && utf8.ValidString(new) {
			assert.True(t, utf8.ValidString(data))
		}
		limit := 1
		if all {
			limit = -1
		}
		if !strings.Contains(strings.ReplaceAll(raw, "\r\n", ""), "\r") && !strings.Contains(old+new, "\r") {
			got, _ := stripBOM(data)
			assert.Equal(t, strings.Replace(lfView, lfOld, lfNew, limit), toLF(got), "LF view")
		}
		if !strings.Contains(raw+old+new, "\r") {
			got, _ := stripBOM(data)
			assert.Equal(t, strings.Replace(raw, old, new, limit), got, "LF-only text is changed only where it matched")
		}
	})
}

// countMatches is the independent model of contract §3.8 step 7: every
// start position of old in text without replace_all ([D15]), the
// non-overlapping count with it.
func countMatches(text, old string, all bool) int {
	if all {
		return strings.Count(text, old)
	}
	return len(naiveStarts(text, old))
}

// naiveStarts returns every offset at which old starts in text.
func naiveStarts(text, old string) []int {
	var at []int
	for i := 0; i+len(old) <= len(text); i++ {
		if text[i:i+len(old)] == old {
			at = append(at, i)
		}
	}
	return at
}

// naiveMatchLines returns the 1-based lines of the first 20 starts of old.
func naiveMatchLines(text, old string) []int {
	var lines []int
	for _, at := range naiveStarts(text, old) {
		if len(lines) == fsapi.MaxMatchLines {
			break
		}
		lines = append(lines, 1+strings.Count(text[:at], "\n"))
	}
	return lines
}

func TestScanOccurrences(t *testing.T) {
	tests := []struct {
		name, text, pat string
		count           int
		lines           []int
	}{
		{"aa twice in aaa", "aaa\n", "aa", 2, []int{1, 1}},
		{"aa three times in aaaa", "aaaa", "aa", 3, []int{1, 1, 1}},
		{"a block sharing a line with the next one", "foo\nfoo\nfoo\n", "foo\nfoo\n", 2, []int{1, 2}},
		{"lines of separate occurrences", "same\nother\nsame", "same", 2, []int{1, 3}},
		{"a near-miss resets the partial match", "abaabab", "abab", 1, []int{1}},
		{"none", "abc", "x", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oc := scanOccurrences(tc.text, tc.pat)
			assert.Equal(t, tc.count, oc.Count)
			assert.Equal(t, tc.lines, oc.Lines)
		})
	}
	t.Run("only the first 20 lines are kept, the count is whole", func(t *testing.T) {
		oc := scanOccurrences(strings.Repeat("x\n", 25), "x")
		assert.Equal(t, 25, oc.Count)
		require.Len(t, oc.Lines, fsapi.MaxMatchLines)
		assert.Equal(t, 20, oc.Lines[19])
	})
}
