package fslocal

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStripBOM(t *testing.T) {
	tests := []struct {
		name, in, want string
		had            bool
	}{
		{"a leading BOM is removed", "\xEF\xBB\xBFhi", "hi", true},
		{"only the first of two BOMs is removed", "\xEF\xBB\xBF\xEF\xBB\xBFhi", "\xEF\xBB\xBFhi", true},
		{"a BOM later in the text stays", "hi\xEF\xBB\xBF", "hi\xEF\xBB\xBF", false},
		{"a truncated BOM is not a BOM", "\xEF\xBBhi", "\xEF\xBBhi", false},
		{"the empty text has none", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, had := stripBOM(tc.in)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.had, had)
			assert.Equal(t, tc.had, hasBOM(tc.in))
		})
	}
}

func TestToLF(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"CRLF pairs become LF", "a\r\nb\r\n", "a\nb\n"},
		{"a lone CR stays", "a\rb\r", "a\rb\r"},
		{"CR CR LF keeps the first CR", "a\r\r\nb", "a\r\nb"},
		{"bare LFs stay", "a\nb", "a\nb"},
		{"mixed text keeps everything but the pairs", "a\r\nb\nc\rd", "a\nb\nc\rd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, toLF(tc.in))
		})
	}
}

func TestCRLFDominant(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"more pairs than bare LFs is dominant", "a\r\nb\r\nc\n", true},
		{"a tie is not dominant", "a\r\nb\n", false},
		{"no line ending is not dominant", "abc", false},
		{"lone CRs do not count", "a\rb\rc\n", false},
		{"a single pair is dominant", "a\r\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, crlfDominant(tc.in))
		})
	}
}

func TestBareLFToCRLF(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"bare LFs become pairs", "a\nb\n", "a\r\nb\r\n"},
		{"existing pairs are kept, not doubled", "a\r\nb\n", "a\r\nb\r\n"},
		{"a leading LF becomes a pair", "\nx", "\r\nx"},
		{"lone CRs stay", "a\rb", "a\rb"},
		{"no trailing newline is added", "a\nb", "a\r\nb"},
		{"the empty text stays empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, bareLFToCRLF(tc.in))
		})
	}
}

func TestLFToCRLF(t *testing.T) {
	assert.Equal(t, "a\r\nb", lfToCRLF("a\nb"))
	assert.Equal(t, "a\r\r\nb", lfToCRLF("a\r\nb"), "a lone CR before an LF stays in front of the new pair")
	assert.Equal(t, "ab", lfToCRLF("ab"))
}

func TestViewMapsBackToRaw(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		view string
	}{
		{"an LF file is its own view", "a\nb\n", "a\nb\n"},
		{"a CRLF file loses its CRs", "ab\r\ncd\r\n", "ab\ncd\n"},
		{"mixed endings and lone CRs", "a\r\nb\nc\rd\r\n\r\n", "a\nb\nc\rd\n\n"},
		{"CR CR LF keeps the first CR", "x\r\r\ny", "x\r\ny"},
		{"the empty text", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newLineView(tc.raw)
			assert.Equal(t, tc.view, v.Text)
			assert.Equal(t, len(tc.raw), v.cursor().at(len(v.Text)), "the end maps to the raw end")
			// Every view byte maps to a raw span whose LF view is that byte.
			c := v.cursor()
			for i := 0; i < len(v.Text); i++ {
				span := tc.raw[c.at(i):c.at(i+1)]
				assert.Equal(t, v.Text[i:i+1], toLF(span), "view byte %d", i)
			}
		})
	}
}

func TestViewSpanOfAPairCoversBothBytes(t *testing.T) {
	raw := "one\r\ntwo\r\n"
	v := newLineView(raw)
	i := strings.Index(v.Text, "\ntwo")
	c := v.cursor()
	assert.Equal(t, "\r\ntwo", raw[c.at(i):c.at(i+4)])
}
