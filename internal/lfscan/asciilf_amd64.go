package lfscan

// asciiLF scans b in 64-byte blocks while a block holds only ASCII bytes
// and returns n, the bytes scanned (a multiple of 64: it stops before the
// first block with a byte above 0x7F, or before a last block shorter than
// 64 bytes), and lf, the LF bytes among them. Written in asciilf_amd64.s.
//
//go:noescape
func asciiLF(b []byte) (n int, lf int)
