// Package textstream streams a text file through the fs service for tools
// that only scan it (read's line window, the editor's view), without a copy
// per chunk when the provider can lend its buffer (contract §3.5).
package textstream

import (
	"context"
	"iter"
	"unsafe"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Scan returns t's text in chunks: through the provider's byte stream when
// fsys is an fsapi.ByteStreamer, else through fsapi.Stream. The errors are
// the provider's (those of ReadText, before the first chunk or as the last
// pair's error).
//
// Each chunk of a byte stream is presented as a string that aliases the
// provider's buffer, valid only until the next iteration step: a consumer
// must copy whatever it keeps (strings.Builder.WriteString does) before it
// asks for the next chunk, and must hand the strings to no other code.
func Scan(ctx context.Context, fsys fsapi.FileSystem, t fsapi.Target) (iter.Seq2[string, error], error) {
	bs, ok := fsys.(fsapi.ByteStreamer)
	if !ok {
		return fsapi.Stream(ctx, fsys, t)
	}
	chunks, err := bs.StreamBytes(ctx, t)
	if err != nil {
		return nil, err
	}
	return func(yield func(string, error) bool) {
		for b, err := range chunks {
			if !yield(unsafe.String(unsafe.SliceData(b), len(b)), err) {
				return
			}
		}
	}, nil
}
