package fslocal

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
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
// passes through as U+0000).
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
	f, size, err := p.openRead(ctx, t)
	if err != nil {
		return "", err
	}
	defer f.Close()
	text, err := readAll(ctx, f, size, "read")
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
	text, _ = stripBOM(text)
	return text, nil
}

// openRegular stats t (following symlinks) and opens it for reading, for
// op "read" (contract §3.5 steps 2–3): absent is `cannot <op> "<p>": not
// found`, a non-file `not a regular file`. A file with several links first
// gets the recovery of a killed in-place rewrite ([D9+]). The open uses O_NONBLOCK so a file
// swapped for a FIFO after the stat cannot hang it; the opened file is
// checked again with fstat.
func (p *Provider) openRegular(ctx context.Context, t fsapi.Target, op string) (*os.File, fs.FileInfo, error) {
	fi, err := p.statKey(t.Key)
	switch {
	case err != nil && absent(err):
		return nil, nil, fsapi.ErrNotFound(op, t.DisplayPath, err)
	case err != nil:
		return nil, nil, coded(op, t.DisplayPath, err)
	case !fi.Mode().IsRegular():
		return nil, nil, fsapi.ErrNotRegularFile(op, t.DisplayPath)
	}
	if _, err := p.recoverBefore(ctx, t, op, fi); err != nil {
		return nil, nil, err
	}
	f, fi, err := p.openKey(t, op)
	if err != nil && absent(err) {
		return nil, nil, fsapi.ErrNotFound(op, t.DisplayPath, err)
	}
	return f, fi, err
}

// openKey opens t's key read-only and checks it is still a regular file.
// Errors are coded for op, except absence, which the caller words.
func (p *Provider) openKey(t fsapi.Target, op string) (*os.File, fs.FileInfo, error) {
	f, err := p.tree.openFile(t.Key, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if absent(err) {
			return nil, nil, err
		}
		return nil, nil, coded(op, t.DisplayPath, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, coded(op, t.DisplayPath, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fsapi.ErrNotRegularFile(op, t.DisplayPath)
	}
	return f, fi, nil
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
