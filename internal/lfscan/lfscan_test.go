package lfscan

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// reference is what Count must return: utf8.Valid and bytes.Count.
func reference(b []byte) (int, bool) {
	if !utf8.Valid(b) {
		return 0, false
	}
	return bytes.Count(b, []byte{'\n'}), true
}

// check compares Count and asciiLF's contract with the reference on b.
func check(t *testing.T, b []byte) {
	t.Helper()
	wantLF, wantValid := reference(b)
	lf, valid := Count(b)
	require.Equal(t, wantValid, valid, "valid, %d bytes", len(b))
	require.Equal(t, wantLF, lf, "LF count, %d bytes", len(b))
	n, nlf := asciiLF(b)
	require.Zero(t, n%64, "whole blocks")
	require.LessOrEqual(t, n, len(b))
	require.Equal(t, bytes.Count(b[:n], []byte{'\n'}), nlf, "the LF bytes of the scanned blocks")
	if i := bytes.IndexFunc(b[:n], func(r rune) bool { return r >= utf8.RuneSelf }); i >= 0 {
		t.Fatalf("a byte above 0x7F at %d was scanned as ASCII", i)
	}
}

func TestCountEqualsValidAndBytesCount(t *testing.T) {
	lfs := strings.Repeat("\n", 1<<20) // every lane gains 4 per block: the rounds' flush
	tests := map[string]string{
		"empty":                          "",
		"shorter than a block":           "a\nb\n",
		"one block":                      strings.Repeat("abc\n", 16),
		"a block and a tail":             strings.Repeat("abc\n", 16) + "x\n",
		"only LF, 1 MiB":                 lfs,
		"LF then a character at the end": lfs + "é\n",
		"a character in the first block": "é" + lfs,
		"invalid after ASCII":            lfs + "\xff",
		"invalid in a block":             strings.Repeat("a", 100) + "\xc0\xaf" + strings.Repeat("\n", 100),
		"a surrogate":                    strings.Repeat("\n", 200) + "\xed\xa0\x80",
		"a truncated sequence":           strings.Repeat("ab\n", 50) + "\xf0\x9f\x98",
		"mixed text":                     strings.Repeat("ligne é€😀\r\n", 1000),
		"NUL and DEL are ASCII":          strings.Repeat("\x00\x7f\n", 100),
	}
	for name, s := range tests {
		t.Run(name, func(t *testing.T) { check(t, []byte(s)) })
	}
}

// A byte above 0x7F at every position of a 300-byte ASCII text, with LF
// bytes around it, at every length.
func TestCountAtEveryPositionAndLength(t *testing.T) {
	base := []byte(strings.Repeat("ab\ncd\n\n", 43))[:300]
	for n := 0; n <= len(base); n++ {
		check(t, base[:n])
	}
	for i := range base {
		for _, c := range []string{"é", "\xff", "\x80"} {
			b := append(append(append([]byte{}, base[:i]...), c...), base[i:]...)
			check(t, b)
		}
	}
}

func TestCountRandomTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	pieces := []string{"a", "\n", "\r\n", "xyzxyzxyzxyz", strings.Repeat("q", 70), "é", "😀", "\xff", "\xe2\x82"}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(200) {
			if r.IntN(20) == 0 {
				b.WriteString(pieces[5+r.IntN(4)])
			} else {
				b.WriteString(pieces[r.IntN(5)])
			}
		}
		check(t, []byte(b.String()))
	}
}

func FuzzCount(f *testing.F) {
	f.Add([]byte(strings.Repeat("abc\n", 40) + "é"))
	f.Add([]byte(strings.Repeat("\n", 5000)))
	f.Add([]byte("\xff" + strings.Repeat("a", 64)))
	f.Fuzz(func(t *testing.T, b []byte) { check(t, b) })
}

// BenchmarkCount checks and counts 64 MiB of ASCII lines in 64 KiB chunks,
// with Count and with utf8.Valid then bytes.Count.
func BenchmarkCount(b *testing.B) {
	text := []byte(strings.Repeat(strings.Repeat("x", 49)+"\n", (64<<20)/50))
	for name, count := range map[string]func([]byte) (int, bool){"Count": Count, "Valid then bytes.Count": reference} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				for off := 0; off < len(text); off += 64 << 10 {
					if _, ok := count(text[off:min(off+64<<10, len(text))]); !ok {
						b.Fatal("invalid")
					}
				}
			}
		})
	}
}
