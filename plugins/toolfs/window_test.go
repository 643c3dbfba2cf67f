package toolfs

import (
	"errors"
	"iter"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// defaultSpec is the window of a read with the default config (contract
// §6.1) and no offset or limit argument.
func defaultSpec() windowSpec {
	return windowSpec{Offset: 1, Limit: 2000, MaxLineLength: 2000, MaxBytes: 51200}
}

// chunks yields parts as a stream, as fsapi.Stream would.
func chunks(parts ...string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for _, p := range parts {
			if !yield(p, nil) {
				return
			}
		}
	}
}

// scanText scans text fed through the given chunking.
func scanText(parts []string, spec windowSpec) (readValue, bool) {
	s := newLineScanner(spec)
	for _, p := range parts {
		s.Write(p)
	}
	return s.Close()
}

// naiveWindow is an independent, whole-text reading of contract §6.7.3 and
// §6.7.4, used as the oracle for the streaming scanner.
func naiveWindow(text string, spec windowSpec) (readValue, bool) {
	segs := strings.Split(fsapi.Display(text), "\n")
	if segs[len(segs)-1] == "" {
		segs = segs[:len(segs)-1] // a final segment without LF counts only if non-empty
	}
	first := spec.firstLine()
	total := len(segs)
	v := readValue{Offset: first, Lines: []line{}, TotalLines: &total}
	used, tripped := 0, false
	for i, seg := range segs {
		n := i + 1
		if tripped || n < first || len(v.Lines) >= spec.Limit {
			continue
		}
		seg = strings.TrimSuffix(seg, "\r")
		text := naiveTruncate(seg, spec.MaxLineLength)
		cost := len(text)
		if len(v.Lines) > 0 {
			cost++
		}
		if used+cost > spec.MaxBytes {
			tripped = true
			continue
		}
		used += cost
		v.Lines = append(v.Lines, line{Number: n, Text: text})
	}
	inRange := tripped || first <= total || (total == 0 && first == 1)
	if tripped {
		v.TotalLines = nil // [D26]: a capped window states no total
	}
	return v, inRange
}

// naiveTruncate keeps the longest prefix of whole characters of at most m
// UTF-16 units and appends the suffix when s is longer than m units.
func naiveTruncate(s string, m int) string {
	units := 0
	for _, r := range s {
		units += len(string(utf16Units(r)))
	}
	if units <= m {
		return s
	}
	var b strings.Builder
	units = 0
	for _, r := range s {
		w := len(string(utf16Units(r)))
		if units+w > m {
			break
		}
		units += w
		b.WriteRune(r)
	}
	return b.String() + "... (line truncated to " + strconv.Itoa(m) + " chars)"
}

// utf16Units returns one placeholder byte per UTF-16 code unit of r.
func utf16Units(r rune) []byte {
	if r >= 0x10000 {
		return []byte{'x', 'x'}
	}
	return []byte{'x'}
}

func TestWindowSplitsAndCountsLines(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		lines []string
		total int
	}{
		{"the empty text has 0 lines", "", nil, 0},
		{"a has 1 line", "a", []string{"a"}, 1},
		{"a LF has 1 line", "a\n", []string{"a"}, 1},
		{"a lone LF is 1 empty line", "\n", []string{""}, 1},
		{"a LF LF has a and an empty line", "a\n\n", []string{"a", ""}, 2},
		{"a LF CR has a and an empty line", "a\n\r", []string{"a", ""}, 2},
		{"CRLF reads as a line break", "one\r\ntwo\r\n", []string{"one", "two"}, 2},
		{"a CR inside a line stays raw", "a\rb\nc", []string{"a\rb", "c"}, 2},
		{"a final unterminated CR is removed", "a\nb\r", []string{"a", "b"}, 2},
		{"only one trailing CR is removed", "a\r\r\nb", []string{"a\r", "b"}, 2},
		{"a CR-only file is one line", "\r\r", []string{"\r"}, 1},
		{"U+2028 and U+0085 do not split lines", "a\u2028b\u0085c", []string{"a\u2028b\u0085c"}, 1},
		{"lines keep raw characters", "tab\there\x00nul", []string{"tab\there\x00nul"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := scanText([]string{tc.text}, defaultSpec())
			require.True(t, ok)
			var got []string
			for i, l := range v.Lines {
				assert.Equal(t, i+1, l.Number)
				got = append(got, l.Text)
			}
			assert.Equal(t, tc.lines, got)
			assert.Equal(t, tc.total, totalOf(v))
		})
	}
}

func TestWindowTruncatesLongLines(t *testing.T) {
	x2000 := strings.Repeat("x", 2000)
	tests := []struct {
		name string
		m    int
		text string
		want string
	}{
		{"2001 x keep 2000 and the suffix (E17)", 2000, x2000 + "x", x2000 + "... (line truncated to 2000 chars)"},
		{"2000 x are kept whole (E17)", 2000, x2000, x2000},
		{"2000 x plus CRLF are kept whole", 2000, x2000 + "\r\n", x2000},
		{"2000 x plus a final CR are kept whole", 2000, x2000 + "\r", x2000},
		{"abcdefgh at 4 keeps abcd (E17)", 4, "abcdefgh", "abcd... (line truncated to 4 chars)"},
		{"a cut inside an emoji moves left (E17, [D6])", 4, "abc😀def", "abc... (line truncated to 4 chars)"},
		{"an emoji ending exactly at M is kept", 4, "ab😀cd", "ab😀... (line truncated to 4 chars)"},
		{"a line of exactly M units with an emoji is whole", 4, "ab😀", "ab😀"},
		{"an emoji just over M is dropped", 4, "abcd😀", "abcd... (line truncated to 4 chars)"},
		{"an emoji alone over M=1 leaves only the suffix", 1, "😀", "... (line truncated to 1 chars)"},
		{"BMP characters count one unit each", 3, "€€€€", "€€€... (line truncated to 3 chars)"},
		{"a CR inside the kept prefix stays", 4, "a\rbcdef", "a\rbc... (line truncated to 4 chars)"},
		{"M units and a CR before LF is whole", 4, "abcd\r\n", "abcd"},
		{"M units, a CR and more is truncated", 4, "abcd\rx\n", "abcd... (line truncated to 4 chars)"},
		{"an invalid byte is one U+FFFD unit", 2, "a\xffbc", "a\uFFFD... (line truncated to 2 chars)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := defaultSpec()
			spec.MaxLineLength = tc.m
			v, ok := scanText([]string{tc.text}, spec)
			require.True(t, ok)
			require.Len(t, v.Lines, 1)
			assert.Equal(t, tc.want, v.Lines[0].Text)
			assert.True(t, utf8.ValidString(v.Lines[0].Text))
		})
	}
}

func TestWindowByteCap(t *testing.T) {
	tests := []struct {
		name     string
		spec     windowSpec
		text     string
		numbers  []int
		total    int
		outRange bool
	}{
		{"over the cap trips and stops collecting (E14)", windowSpec{Offset: 1, Limit: 2000, MaxLineLength: 2000, MaxBytes: 9}, "aaaa\nbbbb\ncccc", []int{1, 2}, -1, false},
		{"exactly at the cap is not over (E14)", windowSpec{Offset: 1, Limit: 2000, MaxLineLength: 2000, MaxBytes: 9}, "aaaa\nbbbb", []int{1, 2}, 2, false},
		{"the limit is checked before the cap (E14)", windowSpec{Offset: 1, Limit: 2, MaxLineLength: 2000, MaxBytes: 9}, "aaaa\nbbbb\ncccc", []int{1, 2}, 3, false},
		{"a first line over the cap leaves the window empty (E15)", windowSpec{Offset: 1, Limit: 2000, MaxLineLength: 2000, MaxBytes: 3}, "aaaa\nb", nil, -1, false},
		{"a first selected line over the cap past the offset (E15)", windowSpec{Offset: 2, Limit: 2000, MaxLineLength: 2000, MaxBytes: 3}, "a\nbbbb\nc", nil, -1, false},
		{"the suffix counts toward the cap", windowSpec{Offset: 1, Limit: 2000, MaxLineLength: 4, MaxBytes: 40}, "abcdefgh\nabcdefgh\n", []int{1}, -1, false},
		{"a later small line is not collected after the cap trips", windowSpec{Offset: 1, Limit: 2000, MaxLineLength: 2000, MaxBytes: 5}, "aaaa\nbbbbbbbb\nc\n", []int{1}, -1, false},
		{"the default caps stop at line 506 (E16)", defaultSpec(), strings.TrimSuffix(strings.Repeat(strings.Repeat("y", 100)+"\n", 2000), "\n"), seq(1, 506), -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := scanText([]string{tc.text}, tc.spec)
			assert.Equal(t, !tc.outRange, ok)
			var numbers []int
			for _, l := range v.Lines {
				numbers = append(numbers, l.Number)
			}
			assert.Equal(t, tc.numbers, numbers)
			assert.Equal(t, tc.total, totalOf(v))
		})
	}
}

// totalOf returns v's total, or -1 when it states none (the cap tripped).
func totalOf(v readValue) int {
	if v.TotalLines == nil {
		return -1
	}
	return *v.TotalLines
}

// seq returns the integers lo..hi.
func seq(lo, hi int) []int {
	var s []int
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

func TestScanWindowOffsets(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		offset  float64
		limit   int
		numbers []int
		total   int
		err     string
	}{
		{"a window in the middle (E11)", "line one\nline two\nline three\nline four\nline five\nline six\nline seven\nline eight\nline nine\nline ten\n", 5, 4, []int{5, 6, 7, 8}, 10, ""},
		{"offset 1 of an empty file is an empty window (E10)", "", 1, 2000, nil, 0, ""},
		{"offset 2 of an empty file is out of range (E10)", "", 2, 2000, nil, 0, `offset 2 is out of range for "/w/empty.txt" (0 lines)`},
		{"offset past the end is out of range (E13)", "one\ntwo\n", 3, 2000, nil, 0, `offset 3 is out of range for "/w/empty.txt" (2 lines)`},
		{"offset one past the end of a file without final LF", "one\ntwo", 3, 2000, nil, 0, `offset 3 is out of range for "/w/empty.txt" (2 lines)`},
		{"the last line as offset", "one\ntwo\nthree\nfour", 4, 2000, []int{4}, 4, ""},
		{"a huge offset is spelled as given", "one\n", 1e20, 2000, nil, 0, `offset 100000000000000000000 is out of range for "/w/empty.txt" (1 lines)`},
		{"an offset beyond int is spelled in exponent form", "one\n", 1.5e300, 2000, nil, 0, `offset 1.5e+300 is out of range for "/w/empty.txt" (1 lines)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := windowSpec{Offset: tc.offset, Limit: tc.limit, MaxLineLength: 2000, MaxBytes: 51200}
			v, err := scanWindow(chunks(tc.text), spec, "/w/empty.txt")
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				var fe *fsapi.Error
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, fsapi.CodeNotFound, fe.Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "/w/empty.txt", v.Path)
			assert.Equal(t, int(tc.offset), v.Offset)
			numbers := []int{}
			for _, l := range v.Lines {
				numbers = append(numbers, l.Number)
			}
			if tc.numbers == nil {
				tc.numbers = []int{}
			}
			assert.Equal(t, tc.numbers, numbers)
			assert.Equal(t, tc.total, totalOf(v))
			assert.NotNil(t, v.Lines, "lines marshal as [] even when empty")
		})
	}
}

func TestScanWindowPassesStreamErrorsThrough(t *testing.T) {
	boom := fsapi.ErrAborted("read", errors.New("cancelled"))
	stream := func(yield func(string, error) bool) {
		if !yield("one\n", nil) {
			return
		}
		yield("", boom)
	}
	_, err := scanWindow(stream, defaultSpec(), "/w/a.txt")
	assert.Same(t, boom, err)
}

// splitAt cuts text at the given byte offsets (sorted, within range).
func splitAt(text string, cuts []int) []string {
	parts := make([]string, 0, len(cuts)+1)
	prev := 0
	for _, c := range cuts {
		parts = append(parts, text[prev:c])
		prev = c
	}
	return append(parts, text[prev:])
}

// randomCuts returns up to n sorted byte offsets in text, some of them
// inside CRLF pairs and multi-byte characters.
func randomCuts(r *rand.Rand, text string, n int) []int {
	if len(text) == 0 {
		return nil
	}
	cuts := make([]int, 0, n)
	for range r.IntN(n + 1) {
		cuts = append(cuts, r.IntN(len(text)+1))
	}
	for i := 0; i+1 < len(text) && len(cuts) < 2*n; i++ {
		if text[i] == '\r' && text[i+1] == '\n' && r.IntN(2) == 0 {
			cuts = append(cuts, i+1) // between CR and LF
		}
	}
	slicesSort(cuts)
	return cuts
}

// slicesSort sorts ints in place (insertion sort; the slices are small).
func slicesSort(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// randomText builds a text from pieces chosen to stress the scanner.
func randomText(r *rand.Rand, n int) string {
	pieces := []string{"a", "bc", "\n", "\r", "\r\n", "é", "€", "😀", "\u2028", "\t", "\x00", "xyzxyzxyz", "\xff", "\xe2\x82"}
	var b strings.Builder
	for range n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// checkWindow asserts every property of the scanner on one text and spec:
// each chunking gives the result of a single chunk, which equals the naive
// oracle; lines stay within M units plus the suffix and are valid UTF-8.
func checkWindow(t *testing.T, text string, spec windowSpec, r *rand.Rand) {
	t.Helper()
	want, wantOK := naiveWindow(text, spec)
	got, ok := scanText([]string{text}, spec)
	require.Equal(t, wantOK, ok, "in range")
	require.Equal(t, want, got, "one chunk against the oracle")
	if got.TotalLines != nil {
		require.Equal(t, strings.Count(text, "\n")+boolInt(len(text) > 0 && !strings.HasSuffix(text, "\n")), *got.TotalLines)
	}
	for _, l := range got.Lines {
		require.True(t, utf8.ValidString(l.Text))
		body := strings.TrimSuffix(l.Text, truncationSuffix(spec.MaxLineLength))
		units := 0
		for _, c := range body {
			units += runeUnits(c)
		}
		require.LessOrEqual(t, units, spec.MaxLineLength)
	}
	for range 8 {
		parts := splitAt(text, randomCuts(r, text, 6))
		again, ok := scanText(parts, spec)
		require.Equal(t, wantOK, ok, "in range for chunking %q", parts)
		require.Equal(t, want, again, "chunking %q", parts)
	}
	bytewise := splitAt(text, seq(1, len(text)-1))
	again, _ := scanText(bytewise, spec)
	require.Equal(t, want, again, "one byte per chunk")
	hinted := spec
	hinted.SizeHint = int64(len(text))
	again, _ = scanText([]string{text}, hinted)
	require.Equal(t, want, again, "with the size known")
	stable := spec
	stable.StableChunks = true
	again, _ = scanText([]string{text}, stable)
	require.Equal(t, want, again, "pieces of one stable chunk")
	reserved := newLineScanner(stable)
	reserved.reserveLines(strings.Count(text, "\n") + 1)
	reserved.Write(text)
	again, _ = reserved.Close()
	require.Equal(t, want, again, "with room reserved for the lines")
	again, _ = scanText(bytewise, stable)
	require.Equal(t, want, again, "pieces of stable one-byte chunks")
	if utf8.ValidString(text) {
		valid := stable
		valid.ValidText = true
		again, _ = scanText([]string{text}, valid)
		require.Equal(t, want, again, "text known to be valid")
	}
	for _, parts := range [][]string{bytewise, splitAt(text, randomCuts(r, text, 6))} {
		stopped, err := scanWindow(chunks(parts...), spec, "")
		if wantOK {
			require.NoError(t, err)
			require.Equal(t, want, stopped, "scanWindow, which stops at the trip, chunking %q", parts)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestWindowDoesNotDependOnChunking(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 400 {
		text := randomText(r, r.IntN(40))
		spec := windowSpec{
			Offset:        float64(1 + r.IntN(4)),
			Limit:         1 + r.IntN(6),
			MaxLineLength: 1 + r.IntN(6),
			MaxBytes:      1 + r.IntN(40),
		}
		t.Run("random text "+strconv.Itoa(i), func(t *testing.T) {
			checkWindow(t, text, spec, r)
		})
	}
}

// contract §6.7.5a [D26]: once the byte cap trips, the scan takes no more
// text (a stream's later error is never met) and states no total; a window
// that ends at its limit still counts the rest's lines.
func TestACappedWindowReadsNoFurther(t *testing.T) {
	boom := errors.New("read past the window")
	failingAfter := func(parts ...string) iter.Seq2[string, error] {
		return func(yield func(string, error) bool) {
			for _, p := range parts {
				if !yield(p, nil) {
					return
				}
			}
			yield("", boom)
		}
	}
	spec := defaultSpec()
	spec.MaxBytes = 5
	v, err := scanWindow(failingAfter("abcd\nefgh\n", "ij\n"), spec, "/w/a")
	require.NoError(t, err, "the cap tripped in the first chunk: nothing after it is read")
	assert.Equal(t, []line{{1, "abcd"}}, v.Lines)
	assert.Nil(t, v.TotalLines)

	spec = defaultSpec()
	spec.Limit = 2
	_, err = scanWindow(failingAfter("one\ntwo\nthree\n"), spec, "/w/a")
	assert.ErrorIs(t, err, boom, "a window at its limit reads on for the total")
	v, err = scanWindow(chunks("one\ntw", "o\r\nthree", "\nfour\nfive"), spec, "/w/a")
	require.NoError(t, err)
	assert.Equal(t, []line{{1, "one"}, {2, "two"}}, v.Lines)
	assert.Equal(t, 5, totalOf(v), "three, four, five counted")
}

func TestWindowCRLFSplitAcrossChunks(t *testing.T) {
	spec := defaultSpec()
	for _, parts := range [][]string{
		{"one\r", "\ntwo\r", "\n"},
		{"one", "\r", "\n", "two", "\r"},
		{"one\r", "\n", "two\r"},
	} {
		v, ok := scanText(parts, spec)
		require.True(t, ok)
		assert.Equal(t, []line{{1, "one"}, {2, "two"}}, v.Lines, "chunks %q", parts)
		assert.Equal(t, 2, totalOf(v))
	}
}

func TestWindowMultiByteSplitAcrossChunks(t *testing.T) {
	spec := defaultSpec()
	spec.MaxLineLength = 4
	v, ok := scanText([]string{"abc\xf0\x9f", "\x98", "\x80def"}, spec)
	require.True(t, ok)
	assert.Equal(t, []line{{1, "abc... (line truncated to 4 chars)"}}, v.Lines)
	v, _ = scanText([]string{"ab\xe2", "\x82\xac"}, spec)
	assert.Equal(t, []line{{1, "ab€"}}, v.Lines)
	v, _ = scanText([]string{"ab\xe2", "\n\x82"}, spec)
	assert.Equal(t, []line{{1, "ab\uFFFD"}, {2, "\uFFFD"}}, v.Lines, "a character cut by LF is invalid")
}

// repeatChunks yields text n times: a stream of n×len(text) bytes that
// allocates nothing itself.
func repeatChunks(text string, n int) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for range n {
			if !yield(text, nil) {
				return
			}
		}
	}
}

func TestWindowExactTotalAtTheEndOfABigInput(t *testing.T) {
	const lineCount = 1_000_000
	var b strings.Builder
	for i := 1; i <= lineCount; i++ {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	text := b.String()
	for _, chunkSize := range []int{1 << 16, 4093} {
		var parts []string
		for i := 0; i < len(text); i += chunkSize {
			parts = append(parts, text[i:min(i+chunkSize, len(text))])
		}
		t.Run("chunks of "+strconv.Itoa(chunkSize)+" bytes", func(t *testing.T) {
			spec := defaultSpec()
			spec.Offset = lineCount - 2
			v, err := scanWindow(chunks(parts...), spec, "/w/big.txt")
			require.NoError(t, err)
			assert.Equal(t, lineCount, totalOf(v))
			assert.Equal(t, []line{{999998, "line 999998"}, {999999, "line 999999"}, {1000000, "line 1000000"}}, v.Lines)

			spec.Offset = 1
			spec.MaxBytes = 19 // 6+7 bytes fit, line 3 (7 more) trips; the scan stops there [D26]
			v, err = scanWindow(chunks(parts...), spec, "/w/big.txt")
			require.NoError(t, err)
			assert.Nil(t, v.TotalLines)
			assert.Len(t, v.Lines, 2)

			spec.Offset = lineCount + 1
			_, err = scanWindow(chunks(parts...), spec, "/w/big.txt")
			assert.EqualError(t, err, `offset 1000001 is out of range for "/w/big.txt" (1000000 lines)`)
		})
	}
}

// allocatedBytes returns the bytes allocated while scanning stream.
func allocatedBytes(t *testing.T, stream iter.Seq2[string, error], spec windowSpec) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := scanWindow(stream, spec, "/w/big.txt")
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	return after.TotalAlloc - before.TotalAlloc
}

func TestWindowMemoryDoesNotGrowWithInput(t *testing.T) {
	const chunk = 64 << 10
	oneLine := strings.Repeat("x", chunk)                                // no newline at all
	manyLines := strings.Repeat(strings.Repeat("y", 99)+"\n", chunk/100) // 100-byte lines
	midSpec := defaultSpec()
	midSpec.Offset = 40_000
	tests := []struct {
		name  string
		chunk string
		spec  windowSpec
	}{
		{"one line without newline", oneLine, defaultSpec()},
		{"one line with a small M", oneLine, windowSpec{Offset: 1, Limit: 2000, MaxLineLength: 4, MaxBytes: 51200}},
		{"many lines from the start", manyLines, defaultSpec()},
		{"many lines from the middle", manyLines, midSpec},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			small := allocatedBytes(t, repeatChunks(tc.chunk, (8<<20)/chunk), tc.spec)
			big := allocatedBytes(t, repeatChunks(tc.chunk, (64<<20)/chunk), tc.spec)
			t.Logf("allocated %d B for 8 MB, %d B for 64 MB", small, big)
			assert.Less(t, big, 2*small+(64<<10), "64 MB must allocate about what 8 MB does")
			assert.Less(t, big, uint64(1<<20), "a window allocates well under 1 MB")
		})
	}
}

// BenchmarkWindow scans a 200 MB generated stream in 64 KB chunks with the
// default caps: one line without newline, and 2M lines of 100 bytes read
// from the start and at the end (every line before the offset is skipped
// one by one).
func BenchmarkWindow(b *testing.B) {
	const size = 200 << 20
	const chunk = 64 << 10
	lines := strings.Repeat(strings.Repeat("y", 99)+"\n", chunk/100)
	atEnd := defaultSpec()
	atEnd.Offset = float64((size/len(lines))*(chunk/100) - 100)
	cases := []struct {
		name  string
		chunk string
		spec  windowSpec
	}{
		{"one line", strings.Repeat("x", chunk), defaultSpec()},
		{"2M lines from the start", lines, defaultSpec()},
		{"2M lines at the end", lines, atEnd},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			n := size / len(bc.chunk)
			b.SetBytes(int64(n * len(bc.chunk)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := scanWindow(repeatChunks(bc.chunk, n), bc.spec, "/w/big.txt"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func FuzzWindow(f *testing.F) {
	f.Add("one\r\ntwo\r\n", uint64(1), uint8(0), uint8(9), uint8(9), uint16(200))
	f.Add("abc😀def\nx", uint64(2), uint8(0), uint8(3), uint8(3), uint16(40))
	f.Add("aaaa\nbbbb\ncccc", uint64(3), uint8(0), uint8(9), uint8(9), uint16(8))
	f.Add("a\n\r", uint64(4), uint8(1), uint8(1), uint8(1), uint16(1))
	f.Add("\xe2\x82\xac\xff\r", uint64(5), uint8(0), uint8(2), uint8(0), uint16(5))
	f.Fuzz(func(t *testing.T, text string, seed uint64, off, lim, m uint8, maxBytes uint16) {
		spec := windowSpec{
			Offset:        float64(1 + off%8),
			Limit:         1 + int(lim%8),
			MaxLineLength: 1 + int(m%8),
			MaxBytes:      1 + int(maxBytes%64),
		}
		checkWindow(t, text, spec, rand.New(rand.NewPCG(seed, seed>>7)))
	})
}

func TestWindowSpecClampsHugeOffsets(t *testing.T) {
	assert.Equal(t, math.MaxInt, windowSpec{Offset: 1e300}.firstLine())
	assert.Equal(t, math.MaxInt, windowSpec{Offset: math.Exp2(63)}.firstLine())
	assert.Equal(t, 1<<62, windowSpec{Offset: math.Exp2(62)}.firstLine())
}
