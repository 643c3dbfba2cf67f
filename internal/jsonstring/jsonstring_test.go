package jsonstring

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Append writes what json.Marshal writes for every string:
// controls, HTML characters, quotes, U+2028/2029, invalid UTF-8 and
// multi-byte text, at every alignment of the eight-byte skip.
func TestAppendEqualsMarshal(t *testing.T) {
	var cases []string
	for b := range 256 {
		cases = append(cases, string([]byte{byte(b)}))
	}
	pieces := []string{"plain", "\n", "\t", "\"", "\\", "<a&b>", "\u2028", "\u2029", "é", "日本", "🙂", "\xff", "\xe6\x97", "\x7f", "\x00", "\x1f"}
	for _, p := range pieces {
		for pad := range 17 {
			cases = append(cases, strings.Repeat("x", pad)+p+strings.Repeat("y", 17-pad))
		}
	}
	cases = append(cases, "", strings.Repeat("1: line of text\n", 500))
	// Around escapeRun's 16-byte blocks and its 4096-byte parts: a special
	// character at each position near a block or part boundary.
	for _, n := range []int{15, 16, 17, 31, 32, 33, escapeChunk - 17, escapeChunk - 1, escapeChunk, escapeChunk + 1, escapeChunk + 15, escapeChunk + 16, 2*escapeChunk + 5} {
		for _, p := range []string{"\n", "\t", "\r", "\"", "\\", "<", "&", "\x01", "é", "\u2028", "\xff", "日本"} {
			for _, at := range []int{0, 1, 14, 15, 16, n / 2, n - 1} {
				if at < n {
					cases = append(cases, strings.Repeat("a", at)+p+strings.Repeat("b", n-at))
				}
			}
		}
	}
	cases = append(cases, strings.Repeat("日本語のテキスト\n", 300), strings.Repeat("\\\"\n\t\r", 1000))
	for _, s := range cases {
		want, err := json.Marshal(s)
		assert.NoError(t, err)
		assert.Equal(t, string(want), string(Append(nil, s)), "%q", s)
		assert.Equal(t, string(want), string(appendQuoted(appendBytes, s)), "eight-byte way: %q", s)
		// Into a buffer with text before it and little room.
		assert.Equal(t, "prefix"+string(want), string(Append([]byte("prefix"), s)), "%q", s)
	}
}

// appendQuoted writes s quoted with one of Append's ways.
func appendQuoted(way func([]byte, string) []byte, s string) []byte {
	return append(way([]byte{'"'}, s), '"')
}

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "abc\n", "<\u2028>\xff", "日本\t\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := Append(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
		if got := appendQuoted(appendBytes, s); string(got) != string(want) {
			t.Fatalf("eight-byte way, %q: got %s, want %s", s, got, want)
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	var text strings.Builder
	for i := range 2000 {
		text.WriteString(strings.Repeat("x", 20) + ": line " + string(rune('a'+i%26)) + "\n")
	}
	s := text.String()
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		var buf []byte
		for b.Loop() {
			buf = Append(buf[:0], s)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			_, _ = json.Marshal(s)
		}
	})
}
