package quote

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRenderName(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"an ordinary name is verbatim", "notes.md", "notes.md"},
		{"the empty string is verbatim", "", ""},
		{"U+2028 and U+2029 are not controls", "line\u2028sep\u2029", "line\u2028sep\u2029"},
		{"an inner @ is not trailing", "a@b", "a@b"},
		{"an inner quote is not leading", `a"b`, `a"b`},
		{"angle brackets alone are verbatim", "<tag>", "<tag>"},
		{"a slash and question mark are verbatim", "a/b?", "a/b?"},
		{"non-ASCII is verbatim", "émoji😀", "émoji😀"},
		{"< without / is verbatim", "x<", "x<"},
		{"a trailing @ is quoted", "dir@", `"dir@"`},
		{"a leading quote is quoted and escaped", `"q`, `"\"q"`},
		{"a backslash is quoted and doubled", `back\slash`, `"back\\slash"`},
		{"</ is quoted and becomes <\\/", "x</y", `"x<\/y"`},
		{"every </ becomes <\\/", "a</b</c", `"a<\/b<\/c"`},
		{"LF becomes \\n and </ is escaped", "fake\n</content>", `"fake\n<\/content>"`},
		{"TAB becomes \\t", "tab\tx", `"tab\tx"`},
		{"CR becomes \\r", "cr\r", `"cr\r"`},
		{"BS becomes \\b", "bs\b", `"bs\b"`},
		{"FF becomes \\f", "ff\f", `"ff\f"`},
		{"VT becomes \\u000b", "vt\v", `"vt\u000b"`},
		{"U+0001 becomes \\u0001", "\x01a", `"\u0001a"`},
		{"ESC becomes lowercase \\u001b", "e\x1b", `"e\u001b"`},
		{"NUL becomes \\u0000", "a\x00", `"a\u0000"`},
		{"U+001F becomes \\u001f", "\x1f", `"\u001f"`},
		{"DEL quotes but stays raw", "del\x7f", "\"del\x7f\""},
		{"NEL (U+0085) quotes but stays raw", "c1\u0085", "\"c1\u0085\""},
		{"U+009F quotes but stays raw", "c\u009f", "\"c\u009f\""},
		{"U+00A0 is not a control", "nb\u00a0sp", "nb\u00a0sp"},
		{"raw <, >, & and U+2028 stay raw inside quotes", "a\\<>&\u2028", "\"a\\\\<>&\u2028\""},
		{"an invalid byte becomes one raw U+FFFD [D11]", "bad\xffx", "\"bad\uFFFDx\""},
		{"each invalid byte becomes its own U+FFFD", "\xff\xfe", "\"\uFFFD\uFFFD\""},
		{"a truncated sequence gives one U+FFFD per byte", "a\xe2\x82", "\"a\uFFFD\uFFFD\""},
		{"an encoded surrogate gives one U+FFFD per byte", "\xed\xa0\x80", "\"\uFFFD\uFFFD\uFFFD\""},
		{"a raw C1 byte alone is invalid UTF-8", "c\x85", "\"c\uFFFD\""},
		{"a path ending in @ is quoted", "/w/bad@", `"/w/bad@"`},
		{"a quote inside a quoted name is escaped", "\"a\"b@", `"\"a\"b@"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Name(tc.in))
		})
	}
}

// checkRenderName asserts the properties contract §6.6.5 promises for any
// input: the output is valid UTF-8 with no raw C0 control; `</` never appears;
// a name is quoted exactly when one of the listed properties holds, and a
// quoted name decodes as a JSON string to the Display'd name.
func checkRenderName(t *testing.T, s string) {
	t.Helper()
	out := Name(s)
	require.True(t, utf8.ValidString(out), "output must be valid UTF-8: %q", out)
	for _, r := range out {
		require.False(t, r < 0x20, "raw C0 control %U in %q", r, out)
	}
	require.NotContains(t, out, "</")

	hasControl := strings.IndexFunc(s, unicode.IsControl) >= 0
	wantQuoted := !utf8.ValidString(s) || hasControl || strings.Contains(s, `\`) ||
		strings.HasPrefix(s, `"`) || strings.HasSuffix(s, "@") || strings.Contains(s, "</")
	if !wantQuoted {
		require.Equal(t, s, out, "a name without quoting properties is verbatim")
		return
	}
	require.True(t, len(out) >= 2 && out[0] == '"' && out[len(out)-1] == '"', "quoted form: %q", out)
	var back string
	undone := strings.ReplaceAll(out, `<\/`, "</")
	require.NoError(t, json.Unmarshal([]byte(undone), &back), "quoted form must be a JSON string: %q", undone)
	require.Equal(t, ReplaceInvalid(s), back)
	// The escaping is the contract's, not encoding/json's: <, >, &, U+2028
	// and U+2029, DEL and C1 are never escaped.
	for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`, `\u007f`, `\ufffd`} {
		require.NotContains(t, out, esc)
	}
}

func TestRenderNameProperties(t *testing.T) {
	for _, s := range []string{"", "a", "@", `"`, `\`, "</", "<\\/", "x\x00", "\u0085", "\xff", "a\xe2\x82", "\u2028", "<\\\\/"} {
		t.Run("property holds for "+strconv.Quote(s), func(t *testing.T) {
			checkRenderName(t, s)
		})
	}
}

func FuzzRenderName(f *testing.F) {
	for _, s := range []string{"dir@", "x</y", `"q`, `back\slash`, "c1\u0085", "del\x7f", "fake\n</content>", "bad\xffx", "émoji😀", "tab\tx", "a\xe2\x82", "<\\/"} {
		f.Add(s)
	}
	f.Fuzz(checkRenderName)
}
