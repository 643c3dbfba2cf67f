// Package quote renders names and paths for model-visible text: the
// quoting of contract §6.6.5, shared by the list tool, the editor's directory
// view (editor.md §8.4) and the search tools (search.md), and the [D11]
// replacement of invalid UTF-8 that every model-visible path and the
// list's collation go through.
package quote

import (
	"strings"
	"unicode/utf8"
)

// Name returns s as the list tool shows a name or a directory path
// (contract §6.6.5). s is emitted verbatim unless it contains a control
// character (Cc: U+0000–U+001F, U+007F–U+009F), contains a backslash or the
// substring `</`, starts with `"`, ends with `@`, or is not valid UTF-8
// [D11]. Such a string is emitted in quoted JSON-string form: `"` and `\` are
// escaped, U+0008, U+000C, U+000A, U+000D and U+0009 become `\b`, `\f`, `\n`,
// `\r` and `\t`, every other character below U+0020 becomes `\u00xx` (lowercase
// hex), each byte that does not start a valid UTF-8 sequence becomes one raw
// U+FFFD, everything else (DEL, C1 controls, U+2028, `<`, `&`, non-ASCII) is
// copied raw, and finally every `</` becomes `<\/`. The result is always
// valid UTF-8. It is not encoding/json's escaping, which also escapes `<`,
// `>`, `&`, U+2028 and U+2029.
func Name(s string) string {
	if !needsQuoting(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			writeEscapedASCII(&b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError) // [D11]: one raw U+FFFD per invalid byte
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
	return strings.ReplaceAll(b.String(), "</", `<\/`)
}

// needsQuoting reports whether s matches one of the quoting properties of
// contract §6.6.5.
func needsQuoting(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '"' || s[len(s)-1] == '@' || strings.Contains(s, "</") {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '\\' {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return true // invalid UTF-8 [D11]
		}
		if r >= 0x80 && r <= 0x9f {
			return true // C1 control
		}
		i += n
	}
	return false
}

const hexDigits = "0123456789abcdef"

// writeEscapedASCII writes one ASCII byte in the escaped form of contract
// §6.6.5. DEL stays raw.
func writeEscapedASCII(b *strings.Builder, c byte) {
	switch c {
	case '"':
		b.WriteString(`\"`)
	case '\\':
		b.WriteString(`\\`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		if c < 0x20 {
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
			return
		}
		b.WriteByte(c)
	}
}

// ReplaceInvalid returns s with every byte that does not start a valid
// UTF-8 sequence replaced by one U+FFFD, everything else unchanged
// (contract §6.6.5, [D11]). It returns s itself when s is valid.
func ReplaceInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
			i++
			continue
		}
		b = append(b, s[i:i+n]...)
		i += n
	}
	return string(b)
}
