package fslocal

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"os"
	"runtime"
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

// mapText is decodeText over memory mappings of f, whose size is size
// bytes: the same checks in the same order (NUL in the first sniffLen
// bytes, strict UTF-8, one leading BOM removed, ctx checked before every
// chunk; contract §3.5) and chunks of at most chunkSize bytes cut between
// characters. A yielded slice aliases the mapping and is valid only until
// the next step, and only on the iterating goroutine: the iteration turns
// memory faults into panics on that goroutine (debug.SetPanicOnFault), so
// a file truncated while a consumer reads a chunk fails the call (a tool
// call's panic is a result, host §3.3) rather than the process. A fault
// while mapText itself checks a chunk ends the stream with
// errChangedWhileRead. ok is false when f cannot be mapped; the caller then
// reads it.
func mapText(ctx context.Context, f *os.File, size int64, display string) (chunks iter.Seq2[[]byte, error], ok bool) {
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, false
	}
	fd := -1
	if raw.Control(func(d uintptr) { fd = int(d) }) != nil || fd < 0 {
		return nil, false
	}
	return func(yield func([]byte, error) bool) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer runtime.KeepAlive(f) // fd stays open while mapped
		page := int64(os.Getpagesize())
		pos := int64(0) // the next byte to check
		for pos < size {
			base := pos &^ (page - 1)
			end := min(size, base+mapWindow)
			m, err := syscall.Mmap(fd, base, int(end-base), syscall.PROT_READ, syscall.MAP_SHARED)
			if err != nil {
				yield(nil, err)
				return
			}
			n, more := mapWindowText(ctx, m[pos-base:], pos == 0, end == size, display, yield)
			if err := syscall.Munmap(m); err != nil && more {
				yield(nil, err)
				return
			}
			if !more {
				return
			}
			if n == 0 { // cannot happen: a window holds more than one character
				yield(nil, fsapi.ErrInvalidUTF8("read", display))
				return
			}
			pos += int64(n)
		}
	}, true
}

// mapWindowText checks and yields text, the mapped bytes from the stream's
// position to the window's end (first: the position is the file's start;
// last: the window ends at the file's end). It returns how many bytes it
// consumed (all but a sequence cut by the window's end, which the next
// window starts with) and whether the stream goes on.
func mapWindowText(ctx context.Context, text []byte, first, last bool, display string, yield func([]byte, error) bool) (int, bool) {
	if first {
		var binary bool
		if faulted(func() { binary = bytes.IndexByte(text[:min(len(text), sniffLen)], 0) >= 0 }) {
			yield(nil, errChangedWhileRead)
			return 0, false
		}
		if binary {
			yield(nil, fsapi.ErrBinary("read", display))
			return 0, false
		}
	}
	cut := len(text)
	if !last && faulted(func() { cut = completePrefix(text) }) {
		yield(nil, errChangedWhileRead)
		return 0, false
	}
	for off := 0; off < cut; {
		if err := ctx.Err(); err != nil {
			yield(nil, fsapi.ErrAborted("read", err))
			return 0, false
		}
		var n int
		var valid bool
		if faulted(func() {
			n = chunkEnd(text[off:cut], chunkSize)
			valid = utf8.Valid(text[off : off+n])
		}) {
			yield(nil, errChangedWhileRead)
			return 0, false
		}
		if !valid {
			yield(nil, fsapi.ErrInvalidUTF8("read", display))
			return 0, false
		}
		chunk := text[off : off+n]
		if first && off == 0 {
			chunk = bytes.TrimPrefix(chunk, []byte(eol.BOM))
		}
		if len(chunk) > 0 && !yield(chunk, nil) {
			return 0, false
		}
		off += n
	}
	return cut, !last
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
