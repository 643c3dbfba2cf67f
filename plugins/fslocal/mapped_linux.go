package fslocal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"runtime/debug"
	"syscall"
	"unicode/utf8"

	"github.com/dsh-go/dsh/internal/eol"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// A stream of a file of at least mapMinSize bytes maps it, mapWindow bytes
// at a time, instead of copying it into a buffer with read(2): the kernel's
// copy is most of a large read's time (a third of the first window of a
// 200 MB file, as for `wc -l`), and a mapping skips it. One window is mapped
// at a time and unmapped before the next, so the resident memory stays one
// window whatever the file size.
const (
	mapMinSize = 4 << 20
	mapWindow  = 4 << 20
)

// errChangedWhileRead is the error of a mapped read whose file shrank under
// it: the pages past the new end fault, and the read stops instead of
// crashing the process.
var errChangedWhileRead = errors.New("the file changed while it was read")

// mapping is an open regular file of size bytes read through memory
// mappings; display is its display path, for errors.
type mapping struct {
	raw     syscall.RawConn
	size    int64
	display string
}

// mapFile returns the mapping of f, whose size is size bytes; ok is false
// when f has no descriptor to map (the caller then reads it).
func mapFile(f *os.File, size int64, display string) (m mapping, ok bool) {
	raw, err := f.SyscallConn()
	if err != nil {
		return mapping{}, false
	}
	return mapping{raw: raw, size: size, display: display}, true
}

// mmap maps n bytes of the file from offset off (a multiple of the page
// size), read-only. The descriptor is held open while it maps (RawConn's
// Control), so a goroutine that maps after the file was closed gets an
// error, never another file that reused the descriptor's number. A mapping
// stays valid after the file is closed.
func (m mapping) mmap(off int64, n int) (b []byte, err error) {
	if cerr := m.raw.Control(func(fd uintptr) {
		b, err = syscall.Mmap(int(fd), off, n, syscall.PROT_READ, syscall.MAP_SHARED)
	}); cerr != nil {
		return nil, cerr
	}
	return b, err
}

// scanMapped scans f, whose size is size bytes, through memory mappings
// (mapping.scan); ok is false when f cannot be mapped, and the caller then
// reads it.
func scanMapped(ctx context.Context, f *os.File, size int64, display string, count bool, consume func([]byte) bool) (rest fsapi.TextRest, ok bool, err error) {
	m, ok := mapFile(f, size, display)
	if !ok {
		return fsapi.TextRest{}, false, nil
	}
	rest, err = m.scan(ctx, count, consume)
	return rest, true, err
}

// scan is decodeText over mappings of the file: the same checks in the
// same order (NUL in the first sniffLen bytes, strict UTF-8, one leading
// BOM removed, ctx checked before every chunk; contract §3.5) and chunks of
// at most chunkSize bytes cut between characters, handed to consume until
// it returns false. With count, the rest of the file is then checked and
// counted (countRest); without, scan returns there with a zero TextRest.
//
// A chunk aliases the mapping and is valid only until consume returns, and
// only on the calling goroutine: scan turns memory faults into panics on it
// (debug.SetPanicOnFault), so a file truncated while consume reads a chunk
// fails the call (a tool call's panic is a result, host §3.3) rather than
// the process. A fault while scan itself checks the file ends the scan with
// errChangedWhileRead.
func (m mapping) scan(ctx context.Context, count bool, consume func([]byte) bool) (fsapi.TextRest, error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	page := int64(os.Getpagesize())
	pos := int64(0) // the next byte to check
	for pos < m.size {
		base := pos &^ (page - 1)
		end := min(m.size, base+mapWindow)
		b, err := m.mmap(base, int(end-base))
		if err != nil {
			return fsapi.TextRest{}, err
		}
		n, stopped, err := m.scanWindow(ctx, b[pos-base:], pos == 0, end == m.size, consume)
		if uerr := syscall.Munmap(b); err == nil {
			err = uerr
		}
		switch {
		case err != nil:
			return fsapi.TextRest{}, err
		case stopped && count:
			return m.countRest(ctx, pos+int64(n))
		case stopped:
			return fsapi.TextRest{}, nil
		case n == 0: // cannot happen: a window holds more than one character
			return fsapi.TextRest{}, fsapi.ErrInvalidUTF8("read", m.display)
		}
		pos += int64(n)
	}
	return fsapi.TextRest{}, nil
}

// scanWindow checks text, the mapped bytes from the scan's position to the
// window's end (first: the position is the file's start; last: the window
// ends at the file's end), and hands it to consume in chunks. It returns how
// many bytes of text it consumed: when consume stopped, up to the end of
// the chunk it stopped on; else all but a sequence cut by the window's end,
// which the next window starts with.
func (m mapping) scanWindow(ctx context.Context, text []byte, first, last bool, consume func([]byte) bool) (n int, stopped bool, err error) {
	if first {
		var binary bool
		if faulted(func() { binary = bytes.IndexByte(text[:min(len(text), sniffLen)], 0) >= 0 }) {
			return 0, false, errChangedWhileRead
		}
		if binary {
			return 0, false, fsapi.ErrBinary("read", m.display)
		}
	}
	cut := len(text)
	if !last && faulted(func() { cut = completePrefix(text) }) {
		return 0, false, errChangedWhileRead
	}
	for off := 0; off < cut; {
		if err := ctx.Err(); err != nil {
			return 0, false, fsapi.ErrAborted("read", err)
		}
		var n int
		var valid bool
		if faulted(func() {
			n = chunkEnd(text[off:cut], chunkSize)
			valid = utf8.Valid(text[off : off+n])
		}) {
			return 0, false, errChangedWhileRead
		}
		if !valid {
			return 0, false, fsapi.ErrInvalidUTF8("read", m.display)
		}
		chunk := text[off : off+n]
		if first && off == 0 {
			chunk = bytes.TrimPrefix(chunk, []byte(eol.BOM))
		}
		off += n
		if len(chunk) > 0 && !consume(chunk) {
			return off, true, nil
		}
	}
	return cut, false, nil
}

// chunkEnd returns where the first chunk of at most size bytes of b ends:
// len(b) when it fits, else size moved back over at most utf8.UTFMax-1
// continuation bytes, so a character of valid text is never cut (invalid
// text fails its check wherever it is cut).
func chunkEnd(b []byte, size int) int {
	if len(b) <= size {
		return len(b)
	}
	n := size
	for n > size-(utf8.UTFMax-1) && b[n]&0xC0 == 0x80 {
		n--
	}
	return n
}

// faulted runs fn and reports whether it panicked with a memory fault (a
// mapped page gone because the file shrank). Other panics propagate.
func faulted(fn func()) (fault bool) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(interface{ Addr() uintptr }); !ok {
				panic(v)
			}
			fault = true
		}
	}()
	fn()
	return false
}
