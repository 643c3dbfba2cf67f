package fslocal

import (
	"context"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// chunkSize is how many bytes one read takes from a file: the unit between
// two context checks, and the size of StreamText's buffer.
const chunkSize = 64 << 10

// sniffLen is how many leading bytes a read searches for NUL (contract §3.5
// step 5).
const sniffLen = 8192

// ReadText returns the whole regular file t as text (contract §3.5): the
// bytes, strictly valid UTF-8, with one leading BOM (EF BB BF) removed and
// nothing else changed (no line-ending normalisation; a NUL after byte 8192
// passes through as U+0000). When ctx carries a digest sink and the file is
// at most the digest bound, the sink gets the digest of its bytes ([D24]).
//
// Errors, in this order: FS_ABORTED `read aborted` (on entry, between chunks
// of 64 KiB, and after the read); FS_NOT_FOUND `cannot read "<p>": not
// found`; FS_NOT_REGULAR_FILE `cannot read "<p>": not a regular file`;
// FS_PERMISSION_DENIED `cannot read "<p>": permission denied` at any step
// ([D7]); FS_NOT_TEXT `cannot read "<p>": binary file` for a NUL in the first
// 8192 bytes, checked before FS_NOT_TEXT `cannot read "<p>": invalid UTF-8
// text` (surrogates, overlong forms and truncated sequences are invalid).
// Under confinement, a redirection outside the root fails FS_SANDBOX_DENIED.
// Other failures pass through uncoded.
func (p *Provider) ReadText(ctx context.Context, t fsapi.Target) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fsapi.ErrAborted("read", err)
	}
	f, err := p.openRegular(ctx, t, "read")
	if err != nil {
		return "", err
	}
	defer f.Close()
	text, err := readAll(ctx, f, f.size, "read")
	if err != nil {
		return "", coded("read", t.DisplayPath, err)
	}
	if err := ctx.Err(); err != nil {
		return "", fsapi.ErrAborted("read", err)
	}
	if strings.IndexByte(text[:min(len(text), sniffLen)], 0) >= 0 {
		return "", fsapi.ErrBinary("read", t.DisplayPath)
	}
	if !utf8.ValidString(text) {
		return "", fsapi.ErrInvalidUTF8("read", t.DisplayPath)
	}
	p.reportDigest(ctx, text) // [D24]: the whole raw bytes, BOM included
	text, _ = stripBOM(text)
	return text, nil
}

// readAll reads r to the end in chunks of at most chunkSize bytes, checking
// ctx before each (FS_ABORTED `<op> aborted`). size is a capacity hint in
// bytes. The result shares the buffer it was read into, which nothing else
// references, so no copy is made.
func readAll(ctx context.Context, r io.Reader, size int64, op string) (string, error) {
	buf := make([]byte, 0, max(int(size), 0)+512)
	for {
		if err := ctx.Err(); err != nil {
			return "", fsapi.ErrAborted(op, err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := min(cap(buf), len(buf)+chunkSize)
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return unsafe.String(unsafe.SliceData(buf), len(buf)), nil
}
