// Package textstream streams a text file through the fs service for tools
// that only scan it (read's line window, the editor's view), without a copy
// per chunk when the provider can lend its buffer, and lets a scan that has
// what it needs only count the rest's lines (contract §3.5, §6.7.3).
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

// ScanCounting hands t's text to consume in chunks, as Scan presents them
// (strings valid only until consume returns), while consume returns true.
// After the chunk on which it returns false, the rest of the text is still
// read and checked but only its lines are counted, and the returned
// TextRest describes it (zero when consume took everything). The provider
// does that through fsapi.TextScanner when it has it (fslocal counts a
// large file's rest in parallel), else it is done here over Scan's chunks;
// the outcome is the same. The errors are Scan's: before the first chunk,
// or met mid-stream.
func ScanCounting(ctx context.Context, fsys fsapi.FileSystem, t fsapi.Target, consume func(chunk string) (more bool)) (fsapi.TextRest, error) {
	if ts, ok := fsys.(fsapi.TextScanner); ok {
		return ts.ScanText(ctx, t, func(b []byte) bool {
			return consume(unsafe.String(unsafe.SliceData(b), len(b)))
		})
	}
	chunks, err := Scan(ctx, fsys, t)
	if err != nil {
		return fsapi.TextRest{}, err
	}
	var rest fsapi.TextRest
	taking := true
	for c, err := range chunks {
		switch {
		case err != nil:
			return fsapi.TextRest{}, err
		case taking:
			taking = consume(c)
		default:
			// Read-only view of the chunk for counting; nothing writes it.
			rest.Count(unsafe.Slice(unsafe.StringData(c), len(c)))
		}
	}
	return rest, nil
}
