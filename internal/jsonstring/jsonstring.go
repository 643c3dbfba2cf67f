// Package jsonstring writes Go strings as JSON strings, byte for byte as
// encoding/json does, faster: a tool result's text is most of the bytes an
// MCP server sends (issue 10).
package jsonstring

import (
	"math/bits"
	"unicode/utf8"
)

// Append appends s as a JSON string exactly as encoding/json
// marshals a Go string (HTML-safe): `"` and `\` escaped, \b \f \n \r \t by
// name, the other control characters and < > & as \u00XX (lower-case hex),
// U+2028 and U+2029 as \u2028 and \u2029, and each byte of invalid UTF-8 as
// \ufffd. A result's text is most of a response's bytes (a warm read's
// 60 KB): runs of plain ASCII are skipped eight bytes at a time instead of
// one (jsonstring_test.go compares every output with json.Marshal's).
func Append(dst []byte, s string) []byte {
	dst = append(dst, '"')
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
	dst = append(dst, s[start:]...)
	return append(dst, '"')
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
