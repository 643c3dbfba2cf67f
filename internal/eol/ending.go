package eol

import "strings"

// ToLF returns the LF view of s: every CRLF pair becomes one LF, lone CRs and
// everything else are kept. It returns s itself when s has no CRLF pair.
// Contract §2.1 (Before and After views), §3.8 step 6.
func ToLF(s string) string {
	if !strings.Contains(s, "\r\n") {
		return s
	}
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// Counts returns the number of CRLF pairs in s and the number of bare LFs
// (LFs not preceded by CR), the two figures of the dominance rule (contract
// §3.7 step 6, §3.8 step 8).
func Counts(s string) (crlf, bareLF int) {
	lf := strings.Count(s, "\n")
	crlf = strings.Count(s, "\r\n")
	return crlf, lf - crlf
}

// CRLFDominant reports whether s is CRLF-dominant: it holds more CRLF pairs
// than bare LFs. A tie, and a text with no line ending, is not dominant.
// Callers pass the whole text after its BOM (contract §3.7 step 6, §3.8
// step 8).
func CRLFDominant(s string) bool {
	crlf, bare := Counts(s)
	return crlf > bare
}

// BareLFToCRLF returns s with every bare LF written as CRLF; existing CRLF
// pairs and lone CRs are kept. This is how a write to a CRLF-dominant file
// encodes its content (contract §3.7 step 6).
func BareLFToCRLF(s string) string {
	_, bare := Counts(s)
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

// LFToCRLF returns s with every LF written as CRLF, whatever precedes it.
// An edit applies it to its LF-normalised new text when the file's style is
// CRLF, so a lone CR in that text stays in front of the new pair (contract
// §3.8 step 8).
func LFToCRLF(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(s, "\n", "\r\n")
}
