package toolsearch

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceScan is the plain reading of search.md §6.5: split on LF, drop
// one trailing CR, a final segment is a line only when non-empty, the BOM
// is removed from line 1, and each line is matched with the regexp alone.
func referenceScan(re *regexp.Regexp, content []byte, previewMax, maxMatches int) []lineMatch {
	var out []lineMatch
	segs := bytes.Split(content, []byte{'\n'})
	if len(segs[len(segs)-1]) == 0 {
		segs = segs[:len(segs)-1]
	}
	for i, seg := range segs {
		line := bytes.TrimSuffix(seg, []byte{'\r'})
		if i == 0 {
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		if re.Match(line) {
			out = append(out, lineMatch{number: i + 1, line: preview(line, previewMax)})
			if len(out) == maxMatches {
				break
			}
		}
	}
	return out
}

func scanAll(t testing.TB, m *matcher, content []byte, opts scanOptions, oneByte bool) scanResult {
	sc := scanner{m: m}
	var r = bytes.NewReader(content)
	if oneByte {
		return sc.scan(context.Background(), iotest.OneByteReader(r), opts)
	}
	return sc.scan(context.Background(), r, opts)
}

func TestScanLines(t *testing.T) {
	opts := scanOptions{limit: 1 << 30, maxMatches: 100, previewMax: 5}
	tests := []struct {
		name, pattern, content string
		want                   []lineMatch
	}{
		{"CRLF lines lose their CR before matching", "two$", "one\r\ntwo\r\n", []lineMatch{{2, "two"}}},
		{"the BOM is removed from line 1", "^first", "\xEF\xBB\xBFfirst\n", []lineMatch{{1, "first"}}},
		{"invalid UTF-8 gets a placeholder", "!", "ok\nh\xFFi!\n", []lineMatch{{2, "(line is not valid UTF-8)"}}},
		{"a long line is cut on a character boundary", "a", "abcdéfgh\n", []lineMatch{{1, "abcd (line truncated)"}}},
		{"a line of exactly the cap is whole", "a", "abcde\n", []lineMatch{{1, "abcde"}}},
		{"a final segment without LF is a line", "x", "a\nx", []lineMatch{{2, "x"}}},
		{"a file of only a BOM has one empty line", "^$", "\xEF\xBB\xBF", []lineMatch{{1, ""}}},
		{"a file ending LF CR has one more empty line", "^$", "a\n\r", []lineMatch{{2, ""}}},
		{"an empty file has no line", "^$", "", nil},
		{"a line matching twice is one match", "o", "foo\n", []lineMatch{{1, "foo"}}},
		{"NUL stays raw", "b", "a\x00b\n", []lineMatch{{1, "a\x00b"}}},
		{"a literal is found across many lines", "needle", strings.Repeat("hay\n", 1000) + "needle\n" + strings.Repeat("hay\n", 5), []lineMatch{{1001, "needl (line truncated)"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := compilePattern(tc.pattern, false)
			require.NoError(t, err)
			for _, oneByte := range []bool{false, true} {
				res := scanAll(t, m, []byte(tc.content), opts, oneByte)
				assert.Equal(t, tc.want, res.matches, "one byte per read: %v", oneByte)
				assert.Equal(t, referenceScan(m.re, []byte(tc.content), 5, 100), res.matches)
			}
		})
	}
}

func TestScanBinaryAndLimits(t *testing.T) {
	m, err := compilePattern("x", false)
	require.NoError(t, err)
	bin := append(bytes.Repeat([]byte("x\n"), 4000), 0) // NUL at byte 8000
	res := scanAll(t, m, bin, scanOptions{binary: true, limit: 1 << 30, maxMatches: 10, previewMax: 10}, true)
	assert.True(t, res.binary, "a NUL in the first 8192 bytes, even arriving one byte per read")
	late := append(bytes.Repeat([]byte("x\n"), 4100), 0) // NUL at byte 8200
	res = scanAll(t, m, late, scanOptions{binary: true, limit: 1 << 30, maxMatches: 10000, previewMax: 10}, false)
	assert.False(t, res.binary)
	assert.Len(t, res.matches, 4100)

	res = scanAll(t, m, []byte("x\nx\nx\n"), scanOptions{limit: 3, maxMatches: 10, previewMax: 10}, false)
	assert.Equal(t, []lineMatch{{1, "x"}, {2, "x"}}, res.matches, "only fileMaxBytes bytes are read: `x\\nx`")

	res = scanAll(t, m, []byte("x\nx\nx\nx\n"), scanOptions{limit: 100, maxMatches: 2, previewMax: 10}, false)
	assert.Len(t, res.matches, 2, "the scan stops at maxMatches")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sc := scanner{m: m}
	res = sc.scan(ctx, bytes.NewReader([]byte("x\n")), scanOptions{limit: 100, maxMatches: 2, previewMax: 10})
	assert.True(t, res.unfinished, "a spent budget stops the scan before a read")
}

func TestLongLineIsReadWithOneBufferAndCappedPreview(t *testing.T) {
	m, err := compilePattern("needle", false)
	require.NoError(t, err)
	content := append(bytes.Repeat([]byte("a"), 3<<20), []byte("needle")...)
	sc := scanner{m: m}
	res := sc.scan(context.Background(), bytes.NewReader(content), scanOptions{limit: 64 << 20, sizeHint: int64(len(content)), maxMatches: 10, previewMax: 2000})
	require.Len(t, res.matches, 1)
	assert.Equal(t, strings.Repeat("a", 2000)+" (line truncated)", res.matches[0].line)
	assert.Nil(t, sc.buf, "a buffer grown past 1 MiB is not kept for the next file")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sc.scan(context.Background(), bytes.NewReader(content), scanOptions{limit: 64 << 20, sizeHint: int64(len(content)), maxMatches: 10, previewMax: 2000})
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, allocated, uint64(len(content))*5/4, "the long line's buffer is allocated once from the size hint, not doubled (%d bytes for a %d-byte line)", allocated, len(content))
}

func TestRequiredLiteral(t *testing.T) {
	tests := []struct {
		pattern    string
		ignoreCase bool
		want       string
		also       []string
		fold       string
		anyOf      []string
	}{
		{"func NewReplacer", false, "func NewReplacer", nil, "", nil},
		{`errors\.New\("[a-z]+ overflow`, false, `errors.New("`, []string{" overflow"}, "", nil},
		{"(abc)+", false, "", nil, "", nil},
		{"a|b", false, "", nil, "", nil}, // the parser makes it the class [ab]
		{"TODO|FIXME", false, "", nil, "", []string{"TODO", "FIXME"}},
		{"(foo|ba(r|z)x)", false, "", nil, "", []string{"foo", "ba"}},
		{"foo|[0-9]", false, "", nil, "", nil},
		{"(?i)foo|bar", false, "", nil, "", nil},
		{"(?i)abc", false, "", nil, "abc", nil},
		{"abc", true, "", nil, "abc", nil},
		{"NewReplacer", true, "", nil, "newreplacer", nil},
		{"task list", true, "", nil, " li", nil},
		{"ks", true, "", nil, "", nil},
		{"ab", true, "", nil, "ab", nil},
		{"a", true, "", nil, "", nil},
		{"(?i)x[0-9]Yz", false, "", nil, "yz", nil},
		{"Δelta", true, "", nil, "elta", nil},
		{"\uFFFDx", false, "", nil, "", nil},
		{"x[0-9]yz", false, "yz", []string{"x"}, "", nil},
	}
	for _, tc := range tests {
		m, err := compilePattern(tc.pattern, tc.ignoreCase)
		require.NoError(t, err)
		assert.Equal(t, tc.want, string(m.need), tc.pattern)
		var also []string
		for _, l := range m.also {
			also = append(also, string(l))
		}
		assert.Equal(t, tc.also, also, tc.pattern)
		assert.Equal(t, tc.fold, string(m.foldNeed), tc.pattern)
		var anyOf []string
		for _, l := range m.anyOf {
			anyOf = append(anyOf, string(l))
		}
		assert.Equal(t, tc.anyOf, anyOf, tc.pattern)
	}
}

func TestPatternValidation(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{"(a", "grep pattern is not a valid regular expression (missing closing ): `(a`); put a backslash before . * + ? ( ) [ ] { } ^ $ | or \\ to match that character literally"},
		{"(?=x)", "grep pattern is not a valid regular expression (invalid or unsupported Perl syntax: `(?=`); put a backslash before . * + ? ( ) [ ] { } ^ $ | or \\ to match that character literally"},
		{"a{1001}", "grep pattern is not a valid regular expression (invalid repeat count: `{1001}`); put a backslash before . * + ? ( ) [ ] { } ^ $ | or \\ to match that character literally"},
	}
	for _, tc := range tests {
		_, err := compilePattern(tc.pattern, false)
		var se *Error
		require.ErrorAs(t, err, &se, tc.pattern)
		assert.Equal(t, tc.want, se.Message)
		assert.Equal(t, CodeInvalidPattern, se.ErrorCode())
		assert.Equal(t, "SearchError", se.ErrorName())
	}
	lineBreak := "grep pattern cannot match a line break: lines are searched one at a time, so search for a single line of the text"
	for _, p := range []string{"a\nb", `a\nb`, `\x0A`, `\012`, `[\n]`, `a\n|b\n`, `\n{0}`, "(?i)x\\n"} {
		_, err := compilePattern(p, false)
		assert.EqualError(t, err, lineBreak, "%q", p)
	}
	for _, p := range []string{`\s`, `[^a]`, `[a\n]`, `a|\n`, `ab|a\n`, " "} {
		_, err := compilePattern(p, false)
		assert.NoError(t, err, "%q", p)
	}
}

// FuzzScan checks the regexp path on any pattern and content: compiling
// never panics, and a scan (with its literal prefilter, in reads of any
// size) finds exactly the lines the plain per-line reading finds.
func FuzzScan(f *testing.F) {
	f.Add("needle", "hay\nneedle\r\n\xEF\xBB\xBFx", false, uint8(3))
	f.Add(`errors\.New\("[a-z]+ overflow`, "return errors.New(\"int overflow\")\n", false, uint8(1))
	f.Add("^$", "\n\n\r\n", true, uint8(7))
	f.Add("(a", "a", false, uint8(0))
	f.Add("\uFFFD", "\xff\n", false, uint8(2))
	f.Add("TODO|FIXME|(x|yz)", "a TODO\nFIXME b\nnone\nxyz\n", false, uint8(4))
	f.Add("(?i)NewReplacer", "func newreplacer()\nNEWREPLACER\n", true, uint8(5))
	f.Fuzz(func(t *testing.T, pattern, content string, ignoreCase bool, chunk uint8) {
		m, err := compilePattern(pattern, ignoreCase)
		if err != nil {
			return
		}
		want := referenceScan(m.re, []byte(content), 7, 1000)
		var r interface{ Read([]byte) (int, error) } = strings.NewReader(content)
		if chunk > 0 {
			r = &chunkReader{data: []byte(content), n: int(chunk)}
		}
		sc := scanner{m: m}
		res := sc.scan(context.Background(), r, scanOptions{limit: 1 << 30, maxMatches: 1000, previewMax: 7})
		if len(want) == 0 {
			want = nil
		}
		if !assert.Equal(t, want, res.matches) {
			t.Fatalf("pattern %q content %q", pattern, content)
		}
	})
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}
