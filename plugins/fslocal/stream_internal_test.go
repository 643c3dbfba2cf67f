package fslocal

import (
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
)

// decodeAll runs decodeText over r and returns the text and the error.
func decodeAll(r io.Reader) (string, error) {
	var b strings.Builder
	for chunk, err := range decodeText(context.Background(), r, "/f") {
		if err != nil {
			return b.String(), err
		}
		b.Write(chunk)
	}
	return b.String(), nil
}

// The file reader fills the buffer; these readers cut the stream at every
// byte, so sequences split across reads and the NUL window across reads are
// exercised (contract §3.5).
func TestDecodeTextAcrossReadBoundaries(t *testing.T) {
	tests := []struct {
		name, raw, want, err string
	}{
		{"multi-byte sequences split across reads are carried over", "h€llo 😀 wörld", "h€llo 😀 wörld", ""},
		{"the BOM is removed even when split", "\xEF\xBB\xBFabc", "abc", ""},
		{"a NUL late in the sniff window is binary", strings.Repeat("é", 4000) + "\x00", "", `cannot read "/f": binary file`},
		{"a truncated final sequence is invalid", "ab\xF0\x9F\x98", "", `cannot read "/f": invalid UTF-8 text`},
		{"a surrogate split across reads is invalid", "ab\xED\xA0\x80", "", `cannot read "/f": invalid UTF-8 text`},
		{"the NUL search stops at byte 8192", strings.Repeat("a", 8192) + "\x00", strings.Repeat("a", 8192) + "\x00", ""},
	}
	readers := map[string]func(string) io.Reader{
		"one byte per read":   func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half a chunk a read": func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"data with EOF":       func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	}
	for _, tc := range tests {
		for rname, mk := range readers {
			t.Run(tc.name+" ("+rname+")", func(t *testing.T) {
				got, err := decodeAll(mk(tc.raw))
				if tc.err != "" {
					assert.EqualError(t, err, tc.err)
					return
				}
				assert.NoError(t, err)
				assert.Equal(t, tc.want, got)
			})
		}
	}
}

func TestCompletePrefix(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"ASCII is complete", "abc", 3},
		{"a finished 4-byte rune is complete", "a😀", 5},
		{"a lead byte alone is carried", "a\xF0", 1},
		{"three of four bytes are carried", "a\xF0\x9F\x98", 1},
		{"an invalid lead is left to validation", "a\xFF", 2},
		{"stray continuation bytes are left to validation", "a\x80\x80\x80\x80", 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, completePrefix([]byte(tc.in)))
		})
	}
}
