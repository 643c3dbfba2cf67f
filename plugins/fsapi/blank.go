package fsapi

// IsBlank reports whether s is blank in the contract's sense (contract §3.2
// step 2): empty, or made only of the JavaScript whitespace set U+0009–U+000D,
// U+0020, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F,
// U+3000 and U+FEFF. U+0085 is not whitespace here. Providers use it for
// paths and the tools for every argument check (contract §6).
func IsBlank(s string) bool {
	for _, r := range s {
		switch {
		case r >= 0x09 && r <= 0x0D, r == 0x20, r == 0xA0, r == 0x1680,
			r >= 0x2000 && r <= 0x200A, r == 0x2028, r == 0x2029, r == 0x202F,
			r == 0x205F, r == 0x3000, r == 0xFEFF:
		default:
			return false
		}
	}
	return true
}
