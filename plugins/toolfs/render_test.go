package toolfs

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// listText orders and pages dir, then renders it.
func listText(t *testing.T, path string, dir []fsapi.DirEntry, offset float64, max int) string {
	t.Helper()
	p, err := newListPage(path, dir, offset, max)
	require.NoError(t, err)
	return renderList(p)
}

// listBody is the text between `<content>\n` and `\n</content>`.
func listBody(t *testing.T, text string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "<content>\n")
	require.True(t, ok, "no <content> in %q", text)
	body, ok := strings.CutSuffix(rest, "\n</content>")
	require.True(t, ok, "no </content> at the end of %q", text)
	return body
}

func TestRenderListExamples(t *testing.T) {
	t.Run("every entry type (E1)", func(t *testing.T) {
		dir := []fsapi.DirEntry{
			{Name: "notes.md", Type: fsapi.TypeFile},
			{Name: "zeroomega-3.3.23", Type: fsapi.TypeDirectory},
			{Name: "archive", Type: fsapi.TypeDirectory},
			{Name: "link-to-nowhere", Type: fsapi.TypeOther},
		}
		assert.Equal(t, "<path>/w/d</path>\n<type>directory</type>\n<content>\narchive/\nzeroomega-3.3.23/\nnotes.md\nlink-to-nowhere@\n\n(4 entries: 2 directories, 1 file, 1 other)\n</content>",
			listText(t, "/w/d", dir, 1, 200))
	})
	t.Run("an empty directory (E2)", func(t *testing.T) {
		assert.Equal(t, "<path>/w/empty</path>\n<type>directory</type>\n<content>\n(Empty directory)\n</content>",
			listText(t, "/w/empty", nil, 1, 200))
	})

	p := append(children(fsapi.TypeFile, "a.txt", "b.txt", "c.txt"), children(fsapi.TypeDirectory, "src")...)
	bodies := []struct {
		name   string
		dir    []fsapi.DirEntry
		offset float64
		max    int
		want   string
	}{
		{"the first page (E3)", p, 1, 2, "src/\na.txt\n\n(Showing entries 1-2 of 4: 1 directory, 3 files. Use offset=3 to continue.)"},
		{"a middle page (E3)", p, 2, 2, "a.txt\nb.txt\n\n(Showing entries 2-3 of 4: 1 directory, 3 files. Use offset=4 to continue.)"},
		{"the last page (E3)", p, 3, 2, "b.txt\nc.txt\n\n(Showing entries 3-4 of 4: 1 directory, 3 files.)"},
		{"one file is singular (E4)", children(fsapi.TypeFile, "only.txt"), 1, 200, "only.txt\n\n(1 entry: 0 directories, 1 file)"},
		{"one directory is singular (E4)", children(fsapi.TypeDirectory, "only"), 1, 200, "only/\n\n(1 entry: 1 directory, 0 files)"},
		{"other is never pluralised (E4)", children(fsapi.TypeOther, "s2", "s1"), 1, 200, "s1@\ns2@\n\n(2 entries: 0 directories, 0 files, 2 other)"},
		{"an offset above 1 always says Showing (E4)", children(fsapi.TypeFile, "a", "b"), 2, 200, "b\n\n(Showing entries 2-2 of 2: 0 directories, 2 files.)"},
		{"one of each", append(children(fsapi.TypeOther, "sock"), append(children(fsapi.TypeFile, "a.txt"), children(fsapi.TypeDirectory, "src")...)...), 1, 200, "src/\na.txt\nsock@\n\n(3 entries: 1 directory, 1 file, 1 other)"},
		{"a quoted other keeps @ outside the quotes", children(fsapi.TypeOther, "sock@"), 1, 200, "\"sock@\"@\n\n(1 entry: 0 directories, 0 files, 1 other)"},
		{"a quoted directory keeps / outside the quotes", children(fsapi.TypeDirectory, "x</y"), 1, 200, "\"x<\\/y\"/\n\n(1 entry: 1 directory, 0 files)"},
	}
	for _, tc := range bodies {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, listBody(t, listText(t, "/w/p", tc.dir, tc.offset, tc.max)))
		})
	}
}

func TestRenderListQuotingMatrix(t *testing.T) {
	// E6: a stub listing, since a/b? and x</y cannot be POSIX names.
	dir := append(children(fsapi.TypeDirectory, "dir@", "x</y"), children(fsapi.TypeOther, "special")...)
	dir = append(dir, children(fsapi.TypeFile, `"q`, "<tag>", `a"b`, "a@b", "a/b?", `back\slash`, "c1\u0085", "del\x7f", "émoji😀", "fake\n</content>", "regular@", "tab\tx")...)
	text := listText(t, "/w/m", dir, 1, 200)
	want := strings.Join([]string{
		`"dir@"/`,
		`"x<\/y"/`,
		`"\"q"`,
		`<tag>`,
		`a"b`,
		`a@b`,
		`a/b?`,
		`"back\\slash"`,
		"\"c1\u0085\"",
		"\"del\x7f\"",
		`émoji😀`,
		`"fake\n<\/content>"`,
		`"regular@"`,
		`"tab\tx"`,
		`special@`,
	}, "\n") + "\n\n(15 entries: 2 directories, 12 files, 1 other)"
	assert.Equal(t, want, listBody(t, text))
	assert.Equal(t, 1, strings.Count(text, "</content>"), "</content> occurs exactly once")
}

func TestRenderListInvalidUTF8Name(t *testing.T) {
	// E7 [D11].
	dir := []fsapi.DirEntry{{Name: "ok.txt", Type: fsapi.TypeFile}, {Name: "bad\xffx", Type: fsapi.TypeFile}}
	text := listText(t, "/w/u", dir, 1, 200)
	assert.Equal(t, "\"bad\uFFFDx\"\nok.txt\n\n(2 entries: 0 directories, 2 files)", listBody(t, text))
	assert.True(t, utf8.ValidString(text))
}

func TestRenderListPath(t *testing.T) {
	tests := []struct {
		name string
		path string
		want string
	}{
		{"a plain path is verbatim", "/w/d", "<path>/w/d</path>"},
		{"a path ending in @ is quoted", "/w/bad@", `<path>"/w/bad@"</path>`},
		{"a path with invalid UTF-8 is quoted with U+FFFD [D11]", "/w/b\xffd", "<path>\"/w/b\uFFFDd\"</path>"},
		{"a path with a backslash is quoted", `/w/a\b`, `<path>"/w/a\\b"</path>`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := listText(t, tc.path, nil, 1, 200)
			assert.True(t, strings.HasPrefix(text, tc.want+"\n<type>directory</type>\n"), "got %q", text)
		})
	}
}

// readBody scans text and returns the body of the rendered read.
func readBody(t *testing.T, text string, spec windowSpec) string {
	t.Helper()
	v, err := scanWindow(chunks(text), spec, "/w/a.txt")
	require.NoError(t, err)
	return listBody(t, renderRead(v, spec.Limit))
}

func TestRenderReadExamples(t *testing.T) {
	t.Run("the whole envelope (E10)", func(t *testing.T) {
		v, err := scanWindow(chunks("hello\nworld"), defaultSpec(), "/w/a.txt")
		require.NoError(t, err)
		assert.Equal(t, "<path>/w/a.txt</path>\n<type>file</type>\n<content>\n1: hello\n2: world\n\n(End of file - total 2 lines)\n</content>", renderRead(v, 2000))
	})
	t.Run("an empty file (E10)", func(t *testing.T) {
		v, err := scanWindow(chunks(), defaultSpec(), "/w/empty.txt")
		require.NoError(t, err)
		assert.Equal(t, "<path>/w/empty.txt</path>\n<type>file</type>\n<content>\n(End of file - total 0 lines)\n</content>", renderRead(v, 2000))
	})
	t.Run("the path is Display'd, never quoted [D11]", func(t *testing.T) {
		v, err := scanWindow(chunks("x"), defaultSpec(), "/w/b\xffd@")
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(renderRead(v, 2000), "<path>/w/b\uFFFDd@</path>\n"))
	})

	spec := func(offset float64, limit, m, maxBytes int) windowSpec {
		return windowSpec{Offset: offset, Limit: limit, MaxLineLength: m, MaxBytes: maxBytes}
	}
	def := defaultSpec()
	ten := "line one\nline two\nline three\nline four\nline five\nline six\nline seven\nline eight\nline nine\nline ten\n"
	y100 := strings.Repeat("y", 100)
	tests := []struct {
		name string
		text string
		spec windowSpec
		want string
	}{
		{"a final LF ends the last line (E10)", "hello\n", def, "1: hello\n\n(End of file - total 1 lines)"},
		{"a window in the middle (E11)", ten, spec(5, 4, 2000, 51200), "5: line five\n6: line six\n7: line seven\n8: line eight\n\n(Showing lines 5-8 of 10. Use offset=9 to continue.)"},
		{"CRLF lines (E12)", "one\r\ntwo\r\n", def, "1: one\n2: two\n\n(End of file - total 2 lines)"},
		{"a lone LF is one empty line (E12)", "\n", def, "1: \n\n(End of file - total 1 lines)"},
		{"a LF LF (E12)", "a\n\n", def, "1: a\n2: \n\n(End of file - total 2 lines)"},
		{"a raw CR stays (E12)", "a\rb\nc", def, "1: a\rb\n2: c\n\n(End of file - total 2 lines)"},
		{"over the byte cap (E14)", "aaaa\nbbbb\ncccc", spec(1, 2000, 2000, 9), "1: aaaa\n2: bbbb\n\n(Output capped. Showing lines 1-2. Use offset=3 to continue.)"},
		{"exactly the byte cap (E14)", "aaaa\nbbbb", spec(1, 2000, 2000, 9), "1: aaaa\n2: bbbb\n\n(End of file - total 2 lines)"},
		{"the limit wins over the cap (E14)", "aaaa\nbbbb\ncccc", spec(1, 2, 2000, 9), "1: aaaa\n2: bbbb\n\n(Showing lines 1-2 of 3. Use offset=3 to continue.)"},
		{"a first line over the cap (E15)", "aaaa\nb", spec(1, 2000, 2000, 3), "(Output capped. Showing lines 1-0. Use offset=1 to continue.)"},
		{"a first selected line over the cap (E15)", "a\nbbbb\nc", spec(2, 2000, 2000, 3), "(Output capped. Showing lines 2-1. Use offset=2 to continue.)"},
		{"2001 x are truncated (E17)", strings.Repeat("x", 2001), def, "1: " + strings.Repeat("x", 2000) + "... (line truncated to 2000 chars)\n\n(End of file - total 1 lines)"},
		{"2000 x are whole (E17)", strings.Repeat("x", 2000), def, "1: " + strings.Repeat("x", 2000) + "\n\n(End of file - total 1 lines)"},
		{"truncation at 4 (E17)", "abcdefgh", spec(1, 2000, 4, 51200), "1: abcd... (line truncated to 4 chars)\n\n(End of file - total 1 lines)"},
		{"truncation never splits an emoji (E17, [D6])", "abc😀def", spec(1, 2000, 4, 51200), "1: abc... (line truncated to 4 chars)\n\n(End of file - total 1 lines)"},
		{"the read limit of 2 (E18)", "one\ntwo\nthree\nfour", spec(1, 2, 2000, 51200), "1: one\n2: two\n\n(Showing lines 1-2 of 4. Use offset=3 to continue.)"},
		{"a one-line window (E37)", "line 1\nline 2\nline 3", spec(1, 1, 2000, 51200), "1: line 1\n\n(Showing lines 1-1 of 3. Use offset=2 to continue.)"},
		{"a window that reaches the end", "a\nb\nc", spec(2, 5, 2000, 51200), "2: b\n3: c\n\n(End of file - total 3 lines)"},
		{"a window of exactly limit lines at the end is not capped", "a\nb", spec(1, 2, 2000, 51200), "1: a\n2: b\n\n(End of file - total 2 lines)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, readBody(t, tc.text, tc.spec))
		})
	}

	t.Run("the default caps stop after line 506 (E16)", func(t *testing.T) {
		text := strings.TrimSuffix(strings.Repeat(y100+"\n", 2000), "\n")
		body := readBody(t, text, def)
		assert.True(t, strings.HasSuffix(body, "\n506: "+y100+"\n\n(Output capped. Showing lines 1-506. Use offset=507 to continue.)"), "got tail %q", body[len(body)-200:])
	})
}

func TestReadFooterRecomputesCapped(t *testing.T) {
	tests := []struct {
		name  string
		v     readValue
		limit int
		want  string
	}{
		{"fewer lines than limit before the end is capped", readValue{Offset: 1, Lines: []line{{1, "a"}}, TotalLines: new(3)}, 5, "(Output capped. Showing lines 1-1. Use offset=2 to continue.)"},
		{"exactly limit lines before the end is not capped", readValue{Offset: 1, Lines: []line{{1, "a"}}, TotalLines: new(3)}, 1, "(Showing lines 1-1 of 3. Use offset=2 to continue.)"},
		{"an empty window before the end is capped at offset-1", readValue{Offset: 3, Lines: []line{}, TotalLines: new(5)}, 5, "(Output capped. Showing lines 3-2. Use offset=3 to continue.)"},
		{"an empty window of an empty file is the end", readValue{Offset: 1, Lines: []line{}, TotalLines: new(0)}, 5, "(End of file - total 0 lines)"},
		{"lines is always plural", readValue{Offset: 1, Lines: []line{{1, "a"}}, TotalLines: new(1)}, 5, "(End of file - total 1 lines)"},
		{"a window without a total is capped [D26]", readValue{Offset: 1, Lines: []line{{1, "a"}}}, 5, "(Output capped. Showing lines 1-1. Use offset=2 to continue.)"},
		{"an empty window without a total is capped at offset-1", readValue{Offset: 4, Lines: []line{}}, 5, "(Output capped. Showing lines 4-3. Use offset=4 to continue.)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, readFooter(tc.v, tc.limit))
		})
	}
}

func TestRenderWrite(t *testing.T) {
	assert.Equal(t, "<path>/w/new.txt</path>\n<type>file</type>\n<content>\nCreated file\n</content>", renderWrite("/w/new.txt", fsapi.OperationCreate))
	assert.Equal(t, "<path>/w/a.txt</path>\n<type>file</type>\n<content>\nUpdated file\n</content>", renderWrite("/w/a.txt", fsapi.OperationUpdate))
	assert.Equal(t, "<path>/w/\uFFFD@</path>\n<type>file</type>\n<content>\nCreated file\n</content>", renderWrite("/w/\xff@", fsapi.OperationCreate), "Display'd, never quoted [D11]")
}

func TestRenderEdit(t *testing.T) {
	assert.Equal(t, "The file /w/config.txt has been updated successfully.", renderEdit("/w/config.txt", false))
	assert.Equal(t, "The file /w/a.txt has been updated. All occurrences were successfully replaced.", renderEdit("/w/a.txt", true))
	assert.Equal(t, "The file /w/\uFFFD has been updated successfully.", renderEdit("/w/\xff", false))
}

// The read and list calls of the conformance cases that depend only on a
// file's text or a directory's entries, extracted into testdata/conformance
// by extract.py (W is /w; the provider's part, BOM removal and entry types,
// is modelled there).

type conformanceRead struct {
	Name          string  `json:"name"`
	Offset        float64 `json:"offset"`
	Limit         int     `json:"limit"`
	MaxLineLength int     `json:"maxLineLength"`
	MaxBytes      int     `json:"maxBytes"`
	TextB64       []byte  `json:"text_b64"`
	Path          string  `json:"path"`
	Expect        string  `json:"expect"`
}

type conformanceList struct {
	Name    string  `json:"name"`
	Offset  float64 `json:"offset"`
	Max     int     `json:"max"`
	Path    string  `json:"path"`
	Entries []struct {
		NameB64 []byte          `json:"name_b64"`
		Type    fsapi.EntryType `json:"type"`
	} `json:"entries"`
	Expect string `json:"expect"`
}

// loadJSON decodes a testdata file into v.
func loadJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "conformance", name))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, v))
}

func TestConformanceReadCalls(t *testing.T) {
	var calls []conformanceRead
	loadJSON(t, "read.json", &calls)
	require.NotEmpty(t, calls)
	for _, c := range calls {
		t.Run(c.Name, func(t *testing.T) {
			spec := windowSpec{Offset: c.Offset, Limit: c.Limit, MaxLineLength: c.MaxLineLength, MaxBytes: c.MaxBytes}
			r := rand.New(rand.NewPCG(uint64(len(c.TextB64)), 1))
			text := string(c.TextB64)
			for _, parts := range [][]string{{text}, splitAt(text, randomCuts(r, text, 5))} {
				v, err := scanWindow(chunks(parts...), spec, c.Path)
				got := ""
				if err != nil {
					got = "Error: " + err.Error()
				} else {
					got = renderRead(v, c.Limit)
				}
				assert.Equal(t, c.Expect, got)
			}
		})
	}
}

func TestConformanceListCalls(t *testing.T) {
	var calls []conformanceList
	loadJSON(t, "list.json", &calls)
	require.NotEmpty(t, calls)
	for _, c := range calls {
		t.Run(c.Name, func(t *testing.T) {
			var dir []fsapi.DirEntry
			for _, e := range c.Entries {
				dir = append(dir, fsapi.DirEntry{Name: string(e.NameB64), Type: e.Type})
			}
			// Providers hand over entries in any order; toolfs orders them.
			slices.Reverse(dir)
			p, err := newListPage(c.Path, dir, c.Offset, c.Max)
			got := ""
			if err != nil {
				got = "Error: " + err.Error()
			} else {
				got = renderList(p)
			}
			assert.Equal(t, c.Expect, got)
		})
	}
}

// lineNumber renders each number as strconv does, with ": " after it and
// a newline before it when asked, counting up across carries (9, 99, 999
// ...) and after jumps.
func TestLineNumberCountsAsItoa(t *testing.T) {
	var d lineNumber
	check := func(n int) {
		t.Helper()
		if got := string(d.set(n, n%2 == 0)); got != map[bool]string{true: "\n"}[n%2 == 0]+strconv.Itoa(n)+": " {
			t.Fatalf("set(%d) = %q", n, got)
		}
	}
	for n := 1; n <= 12000; n++ {
		check(n)
	}
	for _, n := range []int{5, 6, 99, 100, 101, 7, 999999, 1000000, 1000001, 0, 1, math.MaxInt - 1, math.MaxInt, 3} {
		check(n)
	}
}
