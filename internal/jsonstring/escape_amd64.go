package jsonstring

// hasEscapeRun says escapeRun copies runs here (amd64, SSE2).
const hasEscapeRun = true

// escapeRun copies s into free, which must hold at least 2*len(s)+16
// bytes, as Append writes it, while it can: plain ASCII as it is, and LF,
// TAB, CR, '"' and '\' as their two-byte escapes. It stops before the first
// byte it leaves to Append (another control, '<', '>', '&', or a byte above
// 0x7F) or when fewer than 16 bytes of s are left, and returns the bytes
// written to free and read from s. Written in escape_amd64.s.
//
//go:noescape
func escapeRun(free []byte, s string) (written, read int)
