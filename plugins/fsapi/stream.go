package fsapi

import (
	"context"
	"iter"
)

// Streamer is the optional capability of streaming a file's text (contract
// §2.2, §3.5). StreamText runs the same checks as ReadText before the first
// chunk; each chunk is valid UTF-8, chunk boundaries mean nothing, and the
// concatenation equals ReadText's result. Errors met mid-stream (FS_ABORTED
// `read aborted`, FS_NOT_TEXT, permission denied) are yielded as the error of
// the last pair. A provider keeps only a small buffer, whatever the file size.
type Streamer interface {
	StreamText(ctx context.Context, t Target) (iter.Seq2[string, error], error)
}

// Stream returns t's text in chunks: through fsys's StreamText when it is a
// [Streamer], else as ReadText's whole text in one chunk. The concatenation
// is the same either way (contract §3.5).
func Stream(ctx context.Context, fsys FileSystem, t Target) (iter.Seq2[string, error], error) {
	if s, ok := fsys.(Streamer); ok {
		return s.StreamText(ctx, t)
	}
	text, err := fsys.ReadText(ctx, t)
	if err != nil {
		return nil, err
	}
	return func(yield func(string, error) bool) { yield(text, nil) }, nil
}

// ByteStreamer is the optional capability of streaming a file's text
// without a copy per chunk. StreamBytes behaves as StreamText (same checks,
// same errors, valid UTF-8 chunks whose concatenation is the text), except
// that each chunk aliases the provider's buffer and is valid only until the
// next iteration step, as bufio.Scanner.Bytes is: a consumer that keeps any
// of it must copy it. A reader that only scans (the read tool counting the
// lines of a 200 MB file) then allocates nothing per chunk.
type ByteStreamer interface {
	StreamBytes(ctx context.Context, t Target) (iter.Seq2[[]byte, error], error)
}

// ScanBytes returns t's text in chunks for a reader that only scans it (the
// read tool's window, the editor's view): fsys's StreamBytes when it is a
// [ByteStreamer], so no chunk is copied, else [Stream]'s chunks as bytes.
// Either way each chunk is valid only until the next iteration step, and
// the errors are those of the stream (contract §3.5).
func ScanBytes(ctx context.Context, fsys FileSystem, t Target) (iter.Seq2[[]byte, error], error) {
	if bs, ok := fsys.(ByteStreamer); ok {
		return bs.StreamBytes(ctx, t)
	}
	chunks, err := Stream(ctx, fsys, t)
	if err != nil {
		return nil, err
	}
	return func(yield func([]byte, error) bool) {
		for c, err := range chunks {
			if !yield([]byte(c), err) {
				return
			}
		}
	}, nil
}
