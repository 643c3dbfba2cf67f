package fslocal

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
)

// repeatReader yields size bytes of a repeated pattern without holding them.
type repeatReader struct {
	pattern string
	off     int
	left    int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.left > 0 {
		c := copy(p[n:min(len(p), n+r.left)], r.pattern[r.off:])
		r.off = (r.off + c) % len(r.pattern)
		n += c
		r.left -= c
	}
	return n, nil
}

// BenchmarkDecodeText measures the read path under StreamText (NUL sniff,
// incremental UTF-8 validation, carry-over) without the per-chunk string
// copy the API hands to its caller: its B/op is one 64 KiB buffer whatever
// the size.
func BenchmarkDecodeText(b *testing.B) {
	for _, mb := range []int{8, 64, 200} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			size := mb << 20
			pattern := strings.Repeat("0123456789abcdé ", 7) + "\n"
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for chunk, err := range decodeText(context.Background(), &repeatReader{pattern: pattern, left: size}, "/f") {
					if err != nil {
						b.Fatal(err)
					}
					n += len(chunk)
				}
				if n != size {
					b.Fatal(n)
				}
			}
		})
	}
}
