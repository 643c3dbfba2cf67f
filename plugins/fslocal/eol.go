package fslocal

import "strings"

// The byte-order mark and line-ending views of writes and edits: stripping
// one leading UTF-8 BOM, the LF view of CRLF text, the dominant-ending rule
// (contract §2.1, §3.7 step 6, §3.8 steps 6–8). Pure text processing: no
// I/O.
//
// A CRLF pair is the two bytes CR LF. A bare LF is an LF not preceded by CR.
// A lone CR is a CR not followed by LF; it is never rewritten. The LF view of
// a text replaces every CRLF pair by one LF and keeps everything else.

// utf8BOM is the UTF-8 encoding of U+FEFF, the byte-order mark EF BB BF.
const utf8BOM = "\ufeff"

// hasBOM reports whether s starts with the UTF-8 BOM, which an overwrite
// keeps (contract §3.7 step 6).
func hasBOM(s string) bool { return strings.HasPrefix(s, utf8BOM) }

// stripBOM returns s without one leading UTF-8 BOM, and whether there was
// one. Only the first BOM is removed; a second is ordinary text (contract
// §3.5 step 7).
func stripBOM(s string) (string, bool) {
	if rest, ok := strings.CutPrefix(s, utf8BOM); ok {
		return rest, true
	}
	return s, false
}

// toLF returns the LF view of s: every CRLF pair becomes one LF, lone CRs and
// everything else are kept. It returns s itself when s has no CRLF pair.
// Contract §2.1 (Before and After views), §3.8 step 6.
func toLF(s string) string {
	if !strings.Contains(s, "\r\n") {
		return s
	}
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// eolCounts returns the number of CRLF pairs in s and the number of bare LFs
// (LFs not preceded by CR), the two figures of the dominance rule (contract
// §3.7 step 6, §3.8 step 8).
func eolCounts(s string) (crlf, bareLF int) {
	lf := strings.Count(s, "\n")
	crlf = strings.Count(s, "\r\n")
	return crlf, lf - crlf
}

// crlfDominant reports whether s is CRLF-dominant: it holds more CRLF pairs
// than bare LFs. A tie, and a text with no line ending, is not dominant.
// Callers pass the text after its BOM: the whole of it for an edit, its
// first 1 MiB for a write (contract §3.7 step 6, §3.8 step 8).
func crlfDominant(s string) bool {
	crlf, bare := eolCounts(s)
	return crlf > bare
}

// bareLFToCRLF returns s with every bare LF written as CRLF; existing CRLF
// pairs and lone CRs are kept. This is how a write to a CRLF-dominant file
// encodes its content (contract §3.7 step 6).
func bareLFToCRLF(s string) string {
	_, bare := eolCounts(s)
	if bare == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + bare)
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' && (i == 0 || s[i-1] != '\r') {
			b.WriteString(s[start:i])
			b.WriteString("\r\n")
			start = i + 1
		}
	}
	b.WriteString(s[start:])
	return b.String()
}

// lfToCRLF returns s with every LF written as CRLF, whatever precedes it.
// An edit applies it to its LF-normalised new text when the file's style is
// CRLF, so a lone CR in that text stays in front of the new pair (contract
// §3.8 step 8).
func lfToCRLF(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(s, "\n", "\r\n")
}
