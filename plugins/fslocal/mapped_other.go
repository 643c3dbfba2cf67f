//go:build !linux

package fslocal

import (
	"context"
	"iter"
	"os"
)

// mapMinSize is the file size from which a Linux stream maps the file; the
// other systems always read it.
const mapMinSize = 1 << 62

// mapText maps nothing outside Linux: ok is false and the caller reads the
// file with decodeText.
func mapText(context.Context, *os.File, int64, string) (iter.Seq2[[]byte, error], bool) {
	return nil, false
}
