package fslocal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// countUnit is how many bytes of a mapped file's rest one goroutine maps,
// checks and counts at a time (countRest): small enough that a goroutine
// per core keeps the resident file bytes near the one mapWindow of a
// sequential scan, large enough that a mapping's set-up is a small part of
// its cost. Units sit at multiples of countUnit in the file (2 MiB, the
// x86-64 huge page), where the kernel maps a large page-cache folio with
// few faults: units cut from an unaligned offset took 2.3 times the page
// faults of a 200 MB read (3,900 against 1,700).
const countUnit = 2 << 20

// errStopped ends a unit whose check another unit's failure made
// pointless. countRest never returns it.
var errStopped = errors.New("stopped: another unit failed")

// countRest checks the file's bytes from from, a character boundary, to its
// end as scan checks them (strict UTF-8, ctx before every chunk; contract
// §3.5) and counts their LF bytes.
//
// The range is cut into units at multiples of countUnit; up to GOMAXPROCS
// goroutines, the caller one of them, take the units in file order from a
// shared counter (so a core busy with other work leaves its share to the
// others), and each maps its unit, checks and counts it, and unmaps it:
// the resident file bytes stay one unit per goroutine. Each cut between
// units is moved to the next character start (charStart), the same for
// the units on both sides; valid UTF-8 is closed under concatenation and
// every cut of valid text falls between characters, so the units all pass
// exactly when the whole rest does.
//
// When a unit fails, the others stop at their next chunk; the error is that
// of the first failing unit in file order among those checked:
// FS_NOT_TEXT, FS_ABORTED, errChangedWhileRead when the file shrank (every
// goroutine turns memory faults into errors, so a truncation never crashes
// the process), or the mapping's error. Any other panic in a goroutine is
// raised again on the caller after all have stopped.
func (m mapping) countRest(ctx context.Context, from int64) (fsapi.TextRest, error) {
	rest := fsapi.TextRest{Bytes: m.size - from}
	if rest.Bytes <= 0 {
		return fsapi.TextRest{}, nil
	}
	first := from / countUnit // units are aligned to countUnit in the file
	units := (m.size+countUnit-1)/countUnit - first
	var (
		next     atomic.Int64 // the next unit to take
		newlines atomic.Int64
		stop     atomic.Bool
		last     byte // the file's last byte, set by the unit that ends there

		mu       sync.Mutex
		errUnit  = units // the failing unit first in file order
		firstErr error
		panicked any
	)
	work := func() {
		defer func() {
			if v := recover(); v != nil {
				mu.Lock()
				if panicked == nil {
					panicked = v
				}
				mu.Unlock()
				stop.Store(true)
			}
		}()
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		for !stop.Load() {
			u := next.Add(1) - 1
			if u >= units {
				return
			}
			n, end, err := m.countUnitAt(ctx, from, first+u, &stop)
			if err != nil {
				if !errors.Is(err, errStopped) {
					mu.Lock()
					if u < errUnit {
						errUnit, firstErr = u, err
					}
					mu.Unlock()
					stop.Store(true)
				}
				return
			}
			newlines.Add(n)
			if end >= 0 {
				last = byte(end)
			}
		}
	}
	var wg sync.WaitGroup
	for range min(int64(runtime.GOMAXPROCS(0)), units) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
	if firstErr != nil {
		return fsapi.TextRest{}, firstErr
	}
	rest.Newlines = newlines.Load()
	rest.Unterminated = last != '\n'
	return rest, nil
}

// countUnitAt maps unit u of the rest that starts at from, checks it in
// chunks of at most chunkSize bytes (ctx and stop before each) and returns
// its LF count and, when it is not empty and ends at the file's end, its
// last byte (else end is -1). The unit's nominal range is the file's bytes
// [u·countUnit, (u+1)·countUnit) from from on, with each end moved to the
// next character start; the first unit starts at from, the last ends at the
// file's end. Only the last unit can be empty (when the file ends within
// utf8.UTFMax-1 continuation bytes of its nominal start), so exactly one
// unit reports the file's last byte. The mapping extends utf8.UTFMax bytes
// past the nominal end to find that character start. Must run with
// debug.SetPanicOnFault set.
func (m mapping) countUnitAt(ctx context.Context, from, u int64, stop *atomic.Bool) (n int64, end int, err error) {
	lo := max(from, u*countUnit)
	hi := min(m.size, (u+1)*countUnit)
	base := lo &^ int64(os.Getpagesize()-1)
	b, err := syscall.Mmap(m.fd, base, int(min(m.size, hi+utf8.UTFMax)-base), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return 0, -1, err
	}
	defer func() {
		if uerr := syscall.Munmap(b); err == nil && uerr != nil {
			n, end, err = 0, -1, uerr
		}
	}()
	start, stopAt := int(lo-base), len(b)
	startOK, stopOK := true, true
	if faulted(func() {
		if lo > from {
			start, startOK = charStart(b, start)
		}
		if hi < m.size {
			stopAt, stopOK = charStart(b, int(hi-base))
		}
	}) {
		return 0, -1, errChangedWhileRead
	}
	if !startOK || !stopOK {
		return 0, -1, fsapi.ErrInvalidUTF8("read", m.display)
	}
	for off := start; off < stopAt; {
		if stop.Load() {
			return 0, -1, errStopped
		}
		if err := ctx.Err(); err != nil {
			return 0, -1, fsapi.ErrAborted("read", err)
		}
		var k, lines int
		var valid bool
		if faulted(func() {
			k = chunkEnd(b[off:stopAt], chunkSize)
			if valid = utf8.Valid(b[off : off+k]); valid {
				lines = bytes.Count(b[off:off+k], []byte{'\n'})
			}
		}) {
			return 0, -1, errChangedWhileRead
		}
		if !valid {
			return 0, -1, fsapi.ErrInvalidUTF8("read", m.display)
		}
		n += int64(lines)
		off += k
	}
	end = -1
	if base+int64(stopAt) == m.size && stopAt > start && faulted(func() { end = int(b[stopAt-1]) }) {
		return 0, -1, errChangedWhileRead
	}
	return n, end, nil
}

// charStart returns the first index at or after i that starts a character
// of b, or len(b) when b ends first: i moved over at most utf8.UTFMax-1
// continuation bytes. ok is false when utf8.UTFMax continuation bytes
// follow i, which no valid text holds.
func charStart(b []byte, i int) (int, bool) {
	for k := i; k < i+utf8.UTFMax; k++ {
		if k == len(b) || b[k]&0xC0 != 0x80 {
			return k, true
		}
	}
	return 0, false
}
