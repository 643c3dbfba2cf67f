package eol

import "strings"

// BOM is the UTF-8 encoding of U+FEFF, the byte-order mark EF BB BF.
const BOM = "\ufeff"

// HasBOM reports whether s starts with the UTF-8 BOM, which an overwrite
// keeps (contract §3.7 step 6).
func HasBOM(s string) bool { return strings.HasPrefix(s, BOM) }

// StripBOM returns s without one leading UTF-8 BOM, and whether there was
// one. Only the first BOM is removed; a second is ordinary text (contract
// §3.5 step 7).
func StripBOM(s string) (string, bool) {
	if rest, ok := strings.CutPrefix(s, BOM); ok {
		return rest, true
	}
	return s, false
}
