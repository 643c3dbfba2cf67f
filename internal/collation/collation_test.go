package collation_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/internal/collation"
)

func TestSortFollowsContractExamples(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{
			name: "punctuation before digits before letters, lowercase first, accents secondary",
			in:   []string{"Zed", "README.txt", "package.json", "B", "alpha", "ab", "a.b", "a-b", "a_b", "ä", "A", "a", "9", "10", ".hidden", "_x"},
			want: []string{"_x", ".hidden", "10", "9", "a", "A", "ä", "a_b", "a-b", "a.b", "ab", "alpha", "B", "package.json", "README.txt", "Zed"},
		},
		{
			name: "quotes, controls and markup order as the contract's second example",
			in:   []string{"tab\tx", "regular@", "fake\n</content>", "émoji😀", "del\x7f", "c1\u0085", `back\slash`, "a/b?", "a@b", `a"b`, "<tag>", `"q`},
			want: []string{`"q`, "<tag>", `a"b`, "a@b", "a/b?", `back\slash`, "c1\u0085", "del\x7f", "émoji😀", "fake\n</content>", "regular@", "tab\tx"},
		},
		{
			name: "names that collate equal fall back to raw bytes",
			in:   []string{"a\x00", "a", "a\u0308", "ä"},
			want: []string{"a", "a\x00", "a\u0308", "ä"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := append([]string(nil), tc.in...)
			collation.Sort(got)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSortFuncRanksFirst(t *testing.T) {
	type entry struct {
		name string
		rank int
	}
	in := []entry{{"b", 1}, {"a", 1}, {"z", 0}, {"c", 2}}
	collation.SortFunc(in, func(e entry) string { return e.name }, func(e entry) int { return e.rank })
	assert.Equal(t, []entry{{"z", 0}, {"a", 1}, {"b", 1}, {"c", 2}}, in)
}

func TestInvalidUTF8CollatesAsReplacementCharacter(t *testing.T) {
	assert.Equal(t, collation.Key("bad\uFFFDx"), collation.Key("bad\xffx"))
}

// Remembered keys are the keys: the same order on a second sort, and after
// the cache has started afresh.
func TestRememberedKeysSortAlike(t *testing.T) {
	names := []string{"Zed", "README.txt", "a-b", "ä", "A", "a", "10", "9", ".hidden", "_x", "bad\xffx"}
	first := append([]string(nil), names...)
	collation.Sort(first)
	second := append([]string(nil), names...)
	collation.Sort(second)
	assert.Equal(t, first, second)
	for i := range 20000 { // more names than the cache holds
		collation.Key(strconv.Itoa(i))
	}
	third := append([]string(nil), names...)
	collation.Sort(third)
	assert.Equal(t, first, third)
}

// BenchmarkSortNewNames sorts 10,200 names the cache has not seen (a
// first listing of a big directory); -benchmem shows the bytes per sort.
func BenchmarkSortNewNames(b *testing.B) {
	round := 0
	for b.Loop() {
		round++
		names := make([]string, 10200)
		for i := range names {
			names[i] = "f" + strconv.Itoa(round) + "-" + strconv.Itoa(i) + ".txt"
		}
		collation.Sort(names)
	}
}
