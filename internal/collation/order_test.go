package collation_test

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/collation"
)

// ranked is an item with a rank, as the list tool sorts them.
type ranked struct {
	name string
	rank int
}

// plainOrder is the comparison of contract §6.6.3 written out directly:
// rank, then bytes.Compare of the whole collation keys, then the raw
// bytes. SortFunc must order every input as it does.
func plainOrder(a, b ranked) int {
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	if c := bytes.Compare(collation.Key(a.name), collation.Key(b.name)); c != 0 {
		return c
	}
	return strings.Compare(a.name, b.name)
}

// checkOrder sorts in with SortFunc and with plainOrder and fails unless
// both give the same sequence.
func checkOrder(t *testing.T, in []ranked) {
	t.Helper()
	want := slices.Clone(in)
	slices.SortStableFunc(want, plainOrder)
	for range 2 { // keys computed, then taken from the cache
		got := slices.Clone(in)
		collation.SortFunc(got, func(e ranked) string { return e.name }, func(e ranked) int { return e.rank })
		require.Equal(t, want, got)
	}
	names := make([]string, len(in))
	for i, e := range in {
		names[i] = e.name
	}
	collation.Sort(names)
	wantNames := slices.Clone(names)
	slices.SortFunc(wantNames, func(a, b string) int { return plainOrder(ranked{name: a}, ranked{name: b}) })
	require.Equal(t, wantNames, names)
}

// alphabet holds pieces names are made of: ASCII letters of both cases,
// digits, punctuation, a NUL, accents precomposed and combining (equal
// keys, different bytes), other scripts, an emoji and invalid UTF-8.
var alphabet = []string{
	"a", "A", "b", "B", "z", "Z", "0", "1", "9", "10", ".", "-", "_", " ", "~",
	"\x00", "\t", "ä", "a\u0308", "é", "e\u0301", "ß", "ss", "Σ", "σ", "ς",
	"日", "本", "😀", "\uFFFD", "\xff", "\xc3", "\xe2\x82", "\u212A", "K",
}

// randomName draws a name of up to max pieces, after prefix.
func randomName(r *rand.Rand, prefix string, max int) string {
	var b strings.Builder
	b.WriteString(prefix)
	for range r.IntN(max + 1) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// TestSortFuncMatchesThePlainComparison: random and adversarial name sets
// (a long shared prefix; names whose keys are equal; names that are
// prefixes of each other; invalid UTF-8; duplicates) sort exactly as the
// plain comparison does.
func TestSortFuncMatchesThePlainComparison(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	prefixes := []string{"", "f", "file-", "src/very-long-shared-prefix-of-many-names-", "ä", "a\u0308", "\xff\xfe"}
	for round := range 400 {
		n := 1 + r.IntN(60)
		prefix := prefixes[round%len(prefixes)]
		in := make([]ranked, n)
		for i := range in {
			in[i] = ranked{name: randomName(r, prefix, 1+round%12), rank: r.IntN(3)}
			if i > 0 && r.IntN(8) == 0 {
				in[i].name = in[r.IntN(i)].name // a duplicate
			}
		}
		checkOrder(t, in)
	}
	adversarial := [][]string{
		{"a", "a\x00", "a\u0308", "ä", "A", "a\x00\x00"},         // equal keys, raw bytes decide
		{"bad\xffx", "bad\uFFFDx", "bad\xfex", "bad\xff", "bad"}, // invalid UTF-8 reads as U+FFFD
		{"", "a", "aa", "aaa", "aaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaab"},
		{"same-prefix-000000000001", "same-prefix-000000000002", "same-prefix-00000000001"},
		{"x", "x"},
		{"\u212A", "K", "k"},
	}
	for _, names := range adversarial {
		in := make([]ranked, len(names))
		for i, n := range names {
			in[i] = ranked{name: n}
		}
		checkOrder(t, in)
		slices.Reverse(in)
		checkOrder(t, in)
	}
	var many []ranked // every window equal: keys differ past 16 bytes of the shared prefix
	for i := range 300 {
		many = append(many, ranked{name: strings.Repeat("w", 40) + string(rune('a'+i%26)) + strings.Repeat("\u0308", i%3), rank: i % 2})
	}
	checkOrder(t, many)
}

// FuzzSortFunc: any set of names (split from the input at '/', which no
// name holds) sorts as the plain comparison does.
func FuzzSortFunc(f *testing.F) {
	f.Add("a/A/ä/a\u0308/b")
	f.Add("bad\xffx/bad\uFFFDx/bad")
	f.Add("file-1/file-10/file-2//file-1")
	f.Fuzz(func(t *testing.T, joined string) {
		parts := strings.Split(joined, "/")
		in := make([]ranked, len(parts))
		for i, p := range parts {
			in[i] = ranked{name: p, rank: len(p) % 3}
		}
		checkOrder(t, in)
	})
}
