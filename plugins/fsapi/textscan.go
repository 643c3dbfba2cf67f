package fsapi

import (
	"bytes"
	"context"
)

// TextRest describes the text a scan's consumer did not take (see
// [TextScanner]): it was checked as every streamed chunk is (strict UTF-8,
// the context; contract §3.5), and only its LF bytes were counted, which is
// all the read tool's line count needs of it (contract §6.7.3 "Counting
// continues to the end").
type TextRest struct {
	// Bytes is the rest's length in bytes; 0 when the consumer took the
	// whole text.
	Bytes int64
	// Newlines is the number of LF bytes (0x0A) in the rest.
	Newlines int64
	// Unterminated reports that the rest is not empty and its last byte is
	// not LF: the text ends with a line that has no terminating LF.
	Unterminated bool
}

// Count adds chunk, the next piece of the rest in text order, to r.
func (r *TextRest) Count(chunk []byte) {
	if len(chunk) == 0 {
		return
	}
	r.Bytes += int64(len(chunk))
	r.Newlines += int64(bytes.Count(chunk, []byte{'\n'}))
	r.Unterminated = chunk[len(chunk)-1] != '\n'
}

// TextScanner is the optional capability of a text stream whose consumer
// can stop taking chunks and still learn the rest's line count: the read
// tool collects a window of a 200 MB file from its first chunks and only
// counts the lines after it.
//
// ScanText runs StreamText's checks before the first chunk and hands the
// text to consume in chunks, as [ByteStreamer] yields them (valid UTF-8,
// aliasing the provider's buffer or mapping, valid only until consume
// returns, boundaries meaning nothing). When consume returns false, no
// further chunk is handed over: the rest of the text is read to the end
// with the same checks (strict UTF-8, abort; contract §3.5) and described
// by the returned TextRest, which is zero when consume never returned false
// or nothing followed. A provider may check and count the rest in parallel,
// but the outcome is that of a sequential stream: the same counts, and an
// error (FS_NOT_TEXT, FS_ABORTED `read aborted`, permission denied, uncoded
// I/O errors) whenever the stream would have yielded one.
type TextScanner interface {
	ScanText(ctx context.Context, t Target, consume func(chunk []byte) (more bool)) (TextRest, error)
}
