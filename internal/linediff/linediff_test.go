package linediff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff/lcs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numbered returns "line1\n…lineN\n".
func numbered(n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if c, ok := change[i]; ok {
			b.WriteString(c)
		} else {
			b.WriteString("line" + strconv.Itoa(i))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// sides returns the hunks as {oldText|null, newText} JSON for comparison.
func sides(t *testing.T, hunks []Hunk) string {
	t.Helper()
	b, err := json.Marshal(hunks)
	require.NoError(t, err)
	return string(b)
}

func TestDiffHunks(t *testing.T) {
	tests := []struct {
		name   string
		before string
		after  string
		want   string
	}{
		{"identical texts give []", "a\nb\n", "a\nb\n", `[]`},
		{"empty texts give []", "", "", `[]`},
		{"one change in 8 lines has 3 lines of context each side (§6.10)", numbered(8, nil), numbered(8, map[int]string{4: "CHANGED"}),
			`[{"path":"f.txt","oldText":"line1\nline2\nline3\nline4\nline5\nline6\nline7","newText":"line1\nline2\nline3\nCHANGED\nline5\nline6\nline7"}]`},
		{"line 10 of 20 gives 7 lines per side from line7 (§6.10)", numbered(20, nil), numbered(20, map[int]string{10: "X"}),
			`[{"path":"f.txt","oldText":"line7\nline8\nline9\nline10\nline11\nline12\nline13","newText":"line7\nline8\nline9\nX\nline11\nline12\nline13"}]`},
		{"lines 3 and 16 of 20 are two hunks (§6.10)", numbered(20, nil), numbered(20, map[int]string{3: "A", 16: "B"}),
			`[{"path":"f.txt","oldText":"line1\nline2\nline3\nline4\nline5\nline6","newText":"line1\nline2\nA\nline4\nline5\nline6"},` +
				`{"path":"f.txt","oldText":"line13\nline14\nline15\nline16\nline17\nline18\nline19","newText":"line13\nline14\nline15\nB\nline17\nline18\nline19"}]`},
		{"6 unchanged lines between changes share a hunk", numbered(20, nil), numbered(20, map[int]string{5: "A", 12: "B"}),
			`[{"path":"f.txt","oldText":"line2\nline3\nline4\nline5\nline6\nline7\nline8\nline9\nline10\nline11\nline12\nline13\nline14\nline15","newText":"line2\nline3\nline4\nA\nline6\nline7\nline8\nline9\nline10\nline11\nB\nline13\nline14\nline15"}]`},
		{"7 unchanged lines between changes make two hunks", numbered(20, nil), numbered(20, map[int]string{5: "A", 13: "B"}),
			`[{"path":"f.txt","oldText":"line2\nline3\nline4\nline5\nline6\nline7\nline8","newText":"line2\nline3\nline4\nA\nline6\nline7\nline8"},` +
				`{"path":"f.txt","oldText":"line10\nline11\nline12\nline13\nline14\nline15\nline16","newText":"line10\nline11\nline12\nB\nline14\nline15\nline16"}]`},
		{"a pure insertion into an empty file has oldText null (§6.10)", "", "brand new\n", `[{"path":"f.txt","oldText":null,"newText":"brand new"}]`},
		{"deleting everything gives newText \"\" (§6.10)", "gone\n", "", `[{"path":"f.txt","oldText":"gone","newText":""}]`},
		{"no-newline markers are dropped (§6.10)", "x", "y", `[{"path":"f.txt","oldText":"x","newText":"y"}]`},
		{"a final newline gained is a change of the last line", "a\nb", "a\nb\n", `[{"path":"f.txt","oldText":"a\nb","newText":"a\nb"}]`},
		{"an empty line inserted into an empty file", "", "\n", `[{"path":"f.txt","oldText":null,"newText":""}]`},
		{"an empty line removed leaves oldText \"\"", "\n", "", `[{"path":"f.txt","oldText":"","newText":""}]`},
		{"an insertion with context has an oldText", "a\nb\n", "a\nx\nb\n", `[{"path":"f.txt","oldText":"a\nb","newText":"a\nx\nb"}]`},
		{"a rewrite keeps BOM-free LF sides (E26)", "a\nb\n", "x\ny\n", `[{"path":"f.txt","oldText":"a\nb","newText":"x\ny"}]`},
		{"an edit in a two-line file (E30)", "mode=DEBUG\nlevel=info\n", "mode=RELEASE\nlevel=info\n", `[{"path":"f.txt","oldText":"mode=DEBUG\nlevel=info","newText":"mode=RELEASE\nlevel=info"}]`},
		{"a CR is ordinary line content", "a\r\nb\n", "a\nb\n", `[{"path":"f.txt","oldText":"a\r\nb","newText":"a\nb"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.JSONEq(t, tc.want, sides(t, Hunks("f.txt", tc.before, tc.after)))
		})
	}
}

func TestDiffHunksKeepsTheRawPathArgument(t *testing.T) {
	hunks := Hunks("./sub/../w.txt", "a\n", "b\n")
	require.Len(t, hunks, 1)
	assert.Equal(t, "./sub/../w.txt", hunks[0].Path)
}

func TestDiffMeta(t *testing.T) {
	before := "a\nb\n"
	big := numbered(2000, nil)
	tests := []struct {
		name    string
		before  *string
		after   string
		omitted bool
		bounds  Bounds
		want    string
	}{
		{"a create has diffs [] (§6.8)", nil, "x\n", false, DefaultBounds, `{"diffs":[]}`},
		{"an identical overwrite has diffs [] (§6.8)", &before, before, false, DefaultBounds, `{"diffs":[]}`},
		{"an update of w.txt (E26)", &before, "x\ny\n", false, DefaultBounds, `{"diffs":[{"path":"w.txt","oldText":"a\nb","newText":"x\ny"}]}`},
		{"texts the provider left out give diffsOmitted (§5.4a)", nil, "", true, DefaultBounds, `{"diffsOmitted":true}`},
		{"a prior text past the basis gives diffsOmitted", &big, "x\n", false, Bounds{MaxBytes: 65536, BasisMaxBytes: 100}, `{"diffsOmitted":true}`},
		{"a new text past the basis gives diffsOmitted", &before, big, false, Bounds{MaxBytes: 65536, BasisMaxBytes: 100}, `{"diffsOmitted":true}`},
		{"a create has diffs [] whatever its size (§6.8)", nil, big, false, Bounds{MaxBytes: 65536, BasisMaxBytes: 100}, `{"diffs":[]}`},
		{"diffs over diffMaxBytes are omitted", &big, "x\n", false, Bounds{MaxBytes: 1000, BasisMaxBytes: 10485760}, `{"diffsOmitted":true}`},
		// 5 bytes of path ("w.txt") + 3 of oldText + 3 of newText.
		{"diffs of exactly diffMaxBytes are kept", &before, "x\ny\n", false, Bounds{MaxBytes: 11, BasisMaxBytes: 10485760}, `{"diffs":[{"path":"w.txt","oldText":"a\nb","newText":"x\ny"}]}`},
		{"diffs one byte over diffMaxBytes are omitted", &before, "x\ny\n", false, Bounds{MaxBytes: 10, BasisMaxBytes: 10485760}, `{"diffsOmitted":true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(BoundedMeta("w.txt", tc.before, tc.after, tc.omitted, tc.bounds))
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(b))
		})
	}
	// Each hunk repeats the path: a long file_path times many hunks counts
	// against the bound, so the wire stays bounded (a trial sent a 400 KB
	// path with 51 hunks: 20 MB of meta).
	var lines, changed strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&lines, "line %d\n", i)
		if i%20 == 0 {
			fmt.Fprintf(&changed, "LINE %d\n", i)
		} else {
			fmt.Fprintf(&changed, "line %d\n", i)
		}
	}
	longPath := strings.Repeat("./", 20000) + "d.txt"
	prior := lines.String()
	wire, err := json.Marshal(BoundedMeta(longPath, &prior, changed.String(), false, DefaultBounds))
	require.NoError(t, err)
	assert.Equal(t, `{"diffsOmitted":true}`, string(wire), "100 hunks of a 40 KB path are over 64 KiB")
	wire, err = json.Marshal(BoundedMeta("d.txt", &prior, changed.String(), false, DefaultBounds))
	require.NoError(t, err)
	assert.Contains(t, string(wire), `"diffs":[{"path":"d.txt"`, "the same diff with a short path is kept")
	m, err := json.Marshal(NewMeta("w.txt", &before, "x\ny\n"))
	require.NoError(t, err)
	assert.Equal(t, `{"diffs":[{"path":"w.txt","oldText":"a\nb","newText":"x\ny"}]}`, string(m), "NewMeta is bounded by the defaults")
}

// TestDiffOfALargeTextLooksOnlyAtTheChange: a one-line change in a large
// text gives the same hunk as in a small one, and diffing it splits only the
// changed region into lines (the allocation stays far below the text's
// size).
func TestDiffOfALargeTextLooksOnlyAtTheChange(t *testing.T) {
	before := numbered(200000, nil)
	after := numbered(200000, map[int]string{100000: "CHANGED"})
	var hunks []Hunk
	allocs := testing.AllocsPerRun(3, func() { hunks = Hunks("f", before, after) })
	require.Len(t, hunks, 1)
	assert.Equal(t, "line99997\nline99998\nline99999\nline100000\nline100001\nline100002\nline100003", *hunks[0].OldText)
	assert.Equal(t, "line99997\nline99998\nline99999\nCHANGED\nline100001\nline100002\nline100003", hunks[0].NewText)
	assert.Less(t, allocs, 200.0, "only the changed region is split and diffed")
}

// checkTiling asserts that the hunk spans of before→after tile both texts:
// outside the spans the texts agree line for line, each span holds a
// change, spans are ordered and separated by more than 2×diffContext
// unchanged lines, and substituting the new side of every span into before
// gives after.
func checkTiling(t *testing.T, before, after string) (a, b []string, spans []hunkSpan) {
	t.Helper()
	a, b = diffLines(before), diffLines(after)
	spans = hunkSpans(a, b, lcs.DiffLines(a, b))
	if before == after {
		require.Empty(t, spans)
		return a, b, spans
	}
	require.NotEmpty(t, spans)
	var rebuilt []string
	pa, pb := 0, 0
	for i, sp := range spans {
		require.LessOrEqual(t, pa, sp.oldLo)
		require.LessOrEqual(t, pb, sp.newLo)
		require.Equal(t, a[pa:sp.oldLo], b[pb:sp.newLo], "unchanged lines between hunks")
		if i > 0 {
			require.Greater(t, sp.oldLo-pa, 0, "hunks separated by at most 2×context lines are merged")
		}
		require.False(t, slices.Equal(a[sp.oldLo:sp.oldHi], b[sp.newLo:sp.newHi]), "a hunk holds a change")
		// A hunk cut short of a text's edge shows exactly diffContext
		// unchanged lines there, so with the gap above two hunks' changes are
		// more than 2×diffContext lines apart.
		if sp.oldLo > 0 || sp.newLo > 0 {
			require.GreaterOrEqual(t, min(sp.oldHi-sp.oldLo, sp.newHi-sp.newLo), diffContext)
			require.Equal(t, a[sp.oldLo:sp.oldLo+diffContext], b[sp.newLo:sp.newLo+diffContext], "leading context")
		}
		if sp.oldHi < len(a) || sp.newHi < len(b) {
			require.GreaterOrEqual(t, min(sp.oldHi-sp.oldLo, sp.newHi-sp.newLo), diffContext)
			require.Equal(t, a[sp.oldHi-diffContext:sp.oldHi], b[sp.newHi-diffContext:sp.newHi], "trailing context")
		}
		rebuilt = append(rebuilt, b[pb:sp.newLo]...)
		rebuilt = append(rebuilt, b[sp.newLo:sp.newHi]...)
		pa, pb = sp.oldHi, sp.newHi
	}
	require.Equal(t, a[pa:], b[pb:], "unchanged tail")
	rebuilt = append(rebuilt, b[pb:]...)
	require.Equal(t, after, strings.Join(rebuilt, ""))
	return a, b, spans
}

// checkSpans checks the tiling of the whole texts' spans, then that the
// hunks diffHunks returns come from the changed region alone: outside it the
// texts agree, the region's spans tile it, and each hunk is one span's
// sides. Where several minimal diffs exist the region's may differ from the
// whole texts' (contract §6.10 leaves that open).
func checkSpans(t *testing.T, before, after string) {
	t.Helper()
	checkTiling(t, before, after)
	hunks := Hunks("p", before, after)
	if before == after {
		require.Equal(t, []Hunk{}, hunks)
		return
	}
	lo, hb, ha := changedRegion(before, after)
	require.Equal(t, before[:lo], after[:lo], "common leading lines")
	require.Equal(t, before[hb:], after[ha:], "common trailing lines")
	require.True(t, lo == 0 || before[lo-1] == '\n', "the region starts a line")
	require.True(t, hb == len(before) || before[hb-1] == '\n', "the region ends a line")
	a, b, spans := checkTiling(t, before[lo:hb], after[lo:ha])
	require.Len(t, hunks, len(spans))
	for i, h := range hunks {
		sp := spans[i]
		require.Equal(t, sp.oldHi == sp.oldLo, h.OldText == nil, "oldText is null exactly when the old side is empty")
		require.Equal(t, joinLines(b[sp.newLo:sp.newHi]), h.NewText, "hunk %d new side", i)
		if h.OldText != nil {
			require.Equal(t, joinLines(a[sp.oldLo:sp.oldHi]), *h.OldText, "hunk %d old side", i)
		}
	}
}

func FuzzDiff(f *testing.F) {
	f.Add(numbered(20, nil), numbered(20, map[int]string{3: "A", 16: "B"}))
	f.Add("", "brand new\n")
	f.Add("gone\n", "")
	f.Add("x", "y")
	f.Add("a\nb", "a\nb\n")
	f.Add("a\na\na\nb\na\na\n", "a\nb\na\na\na\na\n")
	f.Fuzz(checkSpans)
}

func TestDiffSpansProperty(t *testing.T) {
	for i, pair := range [][2]string{
		{numbered(40, nil), numbered(40, map[int]string{1: "x", 9: "y", 16: "z", 40: "w"})},
		{"a\na\na\nb\na\na\n", "a\nb\na\na\na\na\n"},
		{"\n\n\n", "\n\n"},
		{"a", "a\n"},
	} {
		t.Run("pair "+strconv.Itoa(i)+" tiles both texts", func(t *testing.T) {
			checkSpans(t, pair[0], pair[1])
		})
	}
}

func TestCommonPrefixAndSuffix(t *testing.T) {
	long := strings.Repeat("0123456789", 100) // longer than compareBlock
	tests := []struct {
		a, b           string
		prefix, suffix int
	}{
		{"", "", 0, 0},
		{"abc", "abc", 3, 3},
		{"abc", "abd", 2, 0},
		{"xbc", "abc", 0, 2},
		{long + "X" + long, long + "Y" + long, len(long), len(long)},
		{long, long + "tail", len(long), 0},
		{"head" + long, long, 0, len(long)},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.prefix, commonPrefix(tc.a, tc.b), "prefix of %.20q, %.20q", tc.a, tc.b)
		assert.Equal(t, tc.suffix, commonSuffix(tc.a, tc.b), "suffix of %.20q, %.20q", tc.a, tc.b)
	}
}

func TestCountAgreesWithTheHunks(t *testing.T) {
	cases := []struct {
		before, after  string
		added, removed int
	}{
		{"a\nb\nc\n", "a\nb\nc\n", 0, 0},
		{"a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"", "x\ny\n", 2, 0},
		{"x\ny\n", "", 0, 2},
		{"a\nb", "a\nb\n", 1, 1},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\nnew\n3\n4\n5\n6\n7\n8\n10\n", 1, 1},
	}
	for _, c := range cases {
		added, removed := Count(c.before, c.after)
		if added != c.added || removed != c.removed {
			t.Errorf("Count(%q, %q) = +%d -%d, want +%d -%d", c.before, c.after, added, removed, c.added, c.removed)
		}
	}
}
