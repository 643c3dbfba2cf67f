package fslocal

import (
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"unicode/utf8"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// StreamText returns t's text in chunks (contract §3.5), with the same
// checks and outcome as ReadText: the concatenation of the chunks equals
// ReadText's text.
//
// The stat checks (FS_ABORTED, not found, not a regular file, permission
// denied) run before StreamText returns. The file is opened when iteration
// starts and closed when it ends, early or not; each iteration reads the
// file afresh. Every chunk is valid UTF-8 of at most 64 KiB; chunk
// boundaries mean nothing. No chunk is yielded before the first 8192 bytes
// (or the whole of a shorter file) have been searched for NUL, so a binary
// file yields only its error. A multi-byte sequence split across reads is
// carried over, never reported. Errors met while iterating (FS_ABORTED `read
// aborted`, checked before every read; FS_NOT_TEXT; FS_PERMISSION_DENIED;
// uncoded I/O errors) are yielded as the last pair, with an empty chunk.
//
// Memory: one 64 KiB buffer, whatever the file size; each chunk is a fresh
// string the caller may keep (so the bytes allocated over a whole iteration
// equal the file size, while the live memory stays one buffer plus the
// chunks the caller retains). [Provider.StreamBytes] avoids that copy.
func (p *Provider) StreamText(ctx context.Context, t fsapi.Target) (iter.Seq2[string, error], error) {
	chunks, err := p.StreamBytes(ctx, t)
	if err != nil {
		return nil, err
	}
	return func(yield func(string, error) bool) {
		for chunk, err := range chunks {
			if err != nil {
				yield("", err)
				return
			}
			if !yield(string(chunk), nil) {
				return
			}
		}
	}, nil
}

// StreamBytes is StreamText without the copy per chunk (the
// [fsapi.ByteStreamer] capability): the same checks, errors and chunks, but
// each chunk aliases the stream's buffer and is valid only until
// the next iteration step, as bufio.Scanner.Bytes is. A caller that keeps
// any of it must copy it. A scan of any file size then allocates one buffer
// per iteration and nothing per chunk. Contract §3.5.
func (p *Provider) StreamBytes(ctx context.Context, t fsapi.Target) (iter.Seq2[[]byte, error], error) {
	if err := p.streamChecks(ctx, t); err != nil {
		return nil, err
	}
	return scanSeq(func(consume func([]byte) bool) error {
		return p.scanFile(ctx, t, consume)
	}), nil
}

// scanSeq presents scan, which hands chunks to consume until it returns
// false and then returns, as an iterator: each chunk a
// pair, and scan's error as the last pair unless the consumer stopped
// first.
func scanSeq(scan func(consume func([]byte) bool) error) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		stopped := false
		err := scan(func(chunk []byte) bool {
			stopped = !yield(chunk, nil)
			return !stopped
		})
		if err != nil && !stopped {
			yield(nil, err)
		}
	}
}

// streamChecks runs the checks a stream runs before it is returned: the
// context (FS_ABORTED), not found, not a regular file, permission denied,
// and the recovery of an interrupted commit (contract §3.5).
func (p *Provider) streamChecks(ctx context.Context, t fsapi.Target) error {
	if err := ctx.Err(); err != nil {
		return fsapi.ErrAborted("read", err)
	}
	fi, err := p.statKey(t.Key)
	switch {
	case err != nil && absent(err):
		return fsapi.ErrNotFound("read", t.DisplayPath, err)
	case err != nil:
		return coded("read", t.DisplayPath, err)
	case !fi.Mode().IsRegular():
		return fsapi.ErrNotRegularFile("read", t.DisplayPath)
	}
	_, err = p.recoverBefore(ctx, t, "read", fi)
	return err
}

// scanFile opens t and hands its text to consume in chunks (aliasing the
// buffer, valid until consume returns) until consume returns false or the
// text ends. Errors are coded as StreamBytes's. The file is closed before
// scanFile returns. A scan that reaches the end of a file of at most the
// digest bound reports the digest of its raw bytes to ctx's digest sink
// ([D24]); one stopped early reports nothing.
func (p *Provider) scanFile(ctx context.Context, t fsapi.Target, consume func([]byte) bool) error {
	f, err := p.openRegular(ctx, t, "read")
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	var h *fsapi.DigestHash
	sink := fsapi.DigestSink(ctx)
	if sink != nil && f.size <= p.digestMax {
		h = fsapi.NewDigestHash()
		r = io.TeeReader(f, h)
	}
	for chunk, err := range decodeText(ctx, r, t.DisplayPath) {
		if err != nil {
			return coded("read", t.DisplayPath, err)
		}
		if !consume(chunk) {
			return nil
		}
	}
	if h != nil && h.Digest().Size() <= p.digestMax {
		sink(h.Digest()) // [D24]: read to the end, every raw byte digested
	}
	return nil
}

// decodeText reads r in chunks of up to chunkSize bytes and yields the text
// as byte slices that are valid UTF-8, with the read checks of contract §3.5:
// NUL in the first sniffLen bytes (before any chunk is yielded and before any
// decoding), strict UTF-8 with sequences split across reads carried over, one
// leading BOM removed, ctx checked before every read. A yielded slice aliases
// the decoder's buffer and is valid only until the next step. After an error
// nothing more is yielded.
func decodeText(ctx context.Context, r io.Reader, display string) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		buf := make([]byte, chunkSize)
		held := 0  // bytes in buf not yet yielded (a carried partial sequence, or unsniffed bytes)
		total := 0 // bytes read from r so far
		started := false
		for {
			if err := ctx.Err(); err != nil {
				yield(nil, fsapi.ErrAborted("read", err))
				return
			}
			n, err := r.Read(buf[held:])
			if total < sniffLen && bytes.IndexByte(buf[held:held+min(n, sniffLen-total)], 0) >= 0 {
				yield(nil, fsapi.ErrBinary("read", display))
				return
			}
			total += n
			held += n
			eof := errors.Is(err, io.EOF)
			if err != nil && !eof {
				yield(nil, err)
				return
			}
			if !started && !eof && total < sniffLen {
				continue // the first chunk waits until the sniff window is complete
			}
			cut := held
			if !eof {
				cut = completePrefix(buf[:held])
			}
			if !utf8.Valid(buf[:cut]) || (eof && cut < held) {
				yield(nil, fsapi.ErrInvalidUTF8("read", display))
				return
			}
			out := buf[:cut]
			if !started {
				started = true
				out = bytes.TrimPrefix(out, []byte(utf8BOM))
			}
			if len(out) > 0 && !yield(out, nil) {
				return
			}
			held = copy(buf, buf[cut:held])
			if eof {
				return
			}
		}
	}
}

// completePrefix returns the length of the longest prefix of b that does
// not end inside an incomplete (but possibly valid) UTF-8 sequence: the
// start of a trailing sequence that FullRune says is unfinished, else len(b).
func completePrefix(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-(utf8.UTFMax-1); i-- {
		if b[i]&0xC0 != 0x80 { // a leading byte (or ASCII)
			if !utf8.FullRune(b[i:]) {
				return i
			}
			return len(b)
		}
	}
	return len(b)
}

var (
	_ fsapi.Streamer     = (*Provider)(nil)
	_ fsapi.ByteStreamer = (*Provider)(nil)
)
