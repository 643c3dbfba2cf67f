// Package jsonstring writes Go strings as JSON strings, byte for byte as
// encoding/json does, faster: a tool result's text is most of the bytes an
// MCP server sends.
package jsonstring

import (
	"math/bits"
	"slices"
	"unicode/utf8"
)

// Append appends s as a JSON string exactly as encoding/json
// marshals a Go string (HTML-safe): `"` and `\` escaped, \b \f \n \r \t by
// name, the other control characters and < > & as \u00XX (lower-case hex),
// U+2028 and U+2029 as \u2028 and \u2029, and each byte of invalid UTF-8 as
// \ufffd. A result's text is most of a response's bytes (a warm read's
// 60 KB): on amd64 escapeRun (SSE2) copies it 16 bytes at a time, the
// common escapes included; elsewhere plain runs are skipped eight bytes at
// a time (jsonstring_test.go compares both ways with json.Marshal).
func Append(dst []byte, s string) []byte {
	dst = append(dst, '"')
	if hasEscapeRun {
		return append(appendRuns(dst, s), '"')
	}
	return append(appendBytes(dst, s), '"')
}

// escapeChunk bounds the part of s given to escapeRun at once, so that the
// room it needs (twice the part) stays small next to what is written.
const escapeChunk = 4096

// appendRuns appends s escaped, the runs escapeRun takes at a time and what
// it leaves one character at a time: a response's text costs a few
// instructions per 16 bytes and per line, where eight bytes at a time
// cost a warm read most of its encoding.
func appendRuns(dst []byte, s string) []byte {
	for len(s) > 0 {
		if len(s) >= 16 {
			part := s[:min(len(s), escapeChunk)]
			dst = slices.Grow(dst, 2*len(part)+16)
			w, r := escapeRun(dst[len(dst):cap(dst)], part)
			dst, s = dst[:len(dst)+w], s[r:]
			if r == len(part) || len(part)-r < 16 && len(s) >= 16 {
				continue // the part ended; the rest starts a new one
			}
		}
		// One character escapeRun leaves to us, then the non-ASCII text
		// that follows it (a run of UTF-8 stays here rather than going
		// back and forth a character at a time).
		n := appendOne(dst, s)
		dst, s = n.dst, s[n.read:]
		for len(s) > 0 && s[0] >= utf8.RuneSelf {
			n = appendOne(dst, s)
			dst, s = n.dst, s[n.read:]
		}
	}
	return dst
}

// appended is what appendOne did: dst grown by one character's JSON, and
// the bytes of s it read.
type appended struct {
	dst  []byte
	read int
}

// appendOne appends the JSON of the first character of s (non-empty): an
// ASCII byte as itself or its escape, an invalid byte as \ufffd, U+2028
// and U+2029 escaped, any other character as itself.
func appendOne(dst []byte, s string) appended {
	if b := s[0]; b < utf8.RuneSelf {
		if jsonSafe[b] {
			return appended{append(dst, b), 1}
		}
		return appended{appendEscaped(dst, b), 1}
	}
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		return appended{append(dst, `\ufffd`...), 1}
	case r == '\u2028' || r == '\u2029':
		return appended{append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf]), size}
	}
	return appended{append(dst, s[:size]...), size}
}

// appendBytes appends s escaped, skipping plain runs eight bytes at a
// time: the way without escapeRun.
func appendBytes(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			bad := specialBytes(load64(s[i : i+8]))
			if bad == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(bad) >> 3 // the first special byte of the eight
		}
		b := s[i]
		if b < utf8.RuneSelf {
			i++
			if jsonSafe[b] {
				continue // a safe byte in the last few of s
			}
			dst = append(dst, s[start:i-1]...)
			dst = appendEscaped(dst, b)
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// appendEscaped appends the escape of an ASCII byte that is not jsonSafe.
func appendEscaped(dst []byte, b byte) []byte {
	switch b {
	case '"', '\\':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
}

const hexDigits = "0123456789abcdef"

// jsonSafe reports the ASCII bytes that stand for themselves in an
// HTML-safe JSON string.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		safe[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return safe
}()

// specialBytes returns a mask with the high bit set in each of the eight
// bytes of w that is not jsonSafe ASCII (>= 0x80, < 0x20, or one of
// " \\ < > &), little-endian. Only its lowest set bit is exact: a borrow past
// a special byte may set bits above it, never below; the caller uses the
// lowest one and looks again from there.
func specialBytes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs, lt, gt, amp := w^'"'*ones, w^'\\'*ones, w^'<'*ones, w^'>'*ones, w^'&'*ones
	bad := w | (w-0x20*ones)&^w |
		(q-ones)&^q | (bs-ones)&^bs | (lt-ones)&^lt | (gt-ones)&^gt | (amp-ones)&^amp
	return bad & highs
}

// load64 returns the first eight bytes of s, little-endian (one load).
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
