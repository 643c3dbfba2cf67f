package fslocal

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/dsh-go/dsh/internal/lfscan"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// The rest of a scanned file (after the read tool's window) is counted by
// reading it with pread(2) into one buffer per goroutine, never by mapping
// it. A mapping skips the kernel's copy, but pays a page fault per page (per
// 16 pages with fault-around) and, under shadow paging, a hypervisor exit
// per page touched: on a 2-core VM of that kind, counting 200 MB took 31 ms
// mapped (2 goroutines, 2 MiB units) against 8-15 ms read (docs/benchmarks.md).
// A copy is bounded by memory bandwidth on every machine; a fault is not.
// Reads also leave nothing to fault when the file shrinks meanwhile: a short
// read is errChangedWhileRead.
const (
	// countUnit is how many bytes of the rest one goroutine takes at a
	// time: large enough that taking a unit is a small part of its cost,
	// small enough that the goroutines share the work evenly.
	countUnit = 2 << 20
	// countChunk is the size of each goroutine's buffer, and so of each
	// read: the kernel copies it while it is still in the CPU's cache
	// (256 KiB measured fastest of 64 KiB-1 MiB for 200 MB on 2 cores).
	countChunk = 256 << 10
	// countGoroutines caps the goroutines of countRest: past a few cores
	// the memory bandwidth, not the cores, bounds the count.
	countGoroutines = 4
)

// errChangedWhileRead is the error of a count whose file ended before the
// size it had when it was opened: it shrank while it was read.
var errChangedWhileRead = errors.New("the file changed while it was read")

// errStopped ends a unit whose check became pointless: another unit
// failed, or countRest has its answer. countRest never returns it.
var errStopped = errors.New("stopped: the count is decided")

// unitHook is called by a goroutine of countRest with each unit it takes
// (caller: the goroutine is countRest's caller), before it checks it. Tests
// replace it to hold a helper goroutine back.
var unitHook = func(u int, caller bool) {}

// unitCount is the outcome of one unit of countRest: its LF count, the
// file's last byte when the unit ends there (else -1), or its error. The
// first goroutine to finish the unit records it.
type unitCount struct {
	mu   sync.Mutex
	done bool
	n    int64
	end  int
	err  error
}

// record sets the outcome unless another goroutine did first.
func (c *unitCount) record(n int64, end int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		c.done, c.n, c.end, c.err = true, n, end, err
	}
}

// outcome returns what record set; done is false when nothing was.
func (c *unitCount) outcome() (n int64, end int, err error, done bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.end, c.err, c.done
}

// countRest checks the bytes of f, whose size was size when it was opened,
// from from, a character boundary, to size as decodeText checks them
// (strict UTF-8, ctx before every read; contract §3.5) and counts their LF
// bytes, both in one pass where the text is ASCII (lfscan.Count).
//
// The range is cut into units at multiples of countUnit; up to GOMAXPROCS
// goroutines (at most countGoroutines), the caller one of them, take the
// units in file order from a shared counter, and each reads its unit
// through its own countChunk buffer with ReadAt, so the memory is one
// buffer per goroutine whatever the file size. Each cut between units is
// moved to the next character start (charStart), the same for the units on
// both sides; valid UTF-8 is closed under concatenation and every cut of
// valid text falls between characters, so the units all pass exactly when
// the whole rest does.
//
// The caller never waits for another goroutine: once no unit is left to
// take, it checks itself every unit still unfinished (one whose goroutine
// the system has not run lately, on a busy machine, or one half done), and
// returns; a goroutine still busy then stops at its next read, and whatever
// it finds is ignored. Waiting cost up to 107 ms in 30 reads of 200 MB at a
// load average of 9 (a helper's thread preempted holding a unit); checking
// a unit twice costs at most a unit's time, well under a millisecond.
//
// When a unit fails, the others stop at their next read and the error of
// the first failed unit in file order is returned: FS_NOT_TEXT, FS_ABORTED,
// errChangedWhileRead when the file ended early, or the read's error. A
// panic in a helper goroutine, before the caller is done, is raised again
// on the caller.
func countRest(ctx context.Context, f *os.File, from, size int64, display string) (fsapi.TextRest, error) {
	if from >= size {
		return fsapi.TextRest{}, nil
	}
	var stop atomic.Bool // a unit failed, or the caller is done (or panicked)
	defer stop.Store(true)
	first := from / countUnit // units are aligned to countUnit in the file
	units := make([]unitCount, (size+countUnit-1)/countUnit-first)
	hook := unitHook // read once: helpers may outlive the call
	var (
		next     atomic.Int64 // the next unit to take
		mu       sync.Mutex
		panicked any
	)
	// check checks unit u into buf and records it; false when it was
	// stopped or failed.
	check := func(u int, buf []byte) bool {
		n, end, err := countUnitAt(ctx, f, size, display, from, first+int64(u), buf, &stop)
		if errors.Is(err, errStopped) {
			return false
		}
		units[u].record(n, end, err)
		if err != nil {
			stop.Store(true)
			return false
		}
		return true
	}
	bufSize := int(min(countChunk, size-from))
	work := func(caller bool, buf []byte) {
		for !stop.Load() {
			u := int(next.Add(1) - 1)
			if u >= len(units) {
				return
			}
			hook(u, caller)
			if !check(u, buf) {
				return
			}
		}
	}
	for range min(runtime.GOMAXPROCS(0), countGoroutines, len(units)) - 1 {
		go func() {
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
			work(false, make([]byte, bufSize))
		}()
	}
	buf := make([]byte, bufSize)
	work(true, buf)
	for u := range units {
		if _, _, _, done := units[u].outcome(); !done && !check(u, buf) {
			break
		}
	}
	stop.Store(true)
	mu.Lock()
	v := panicked
	mu.Unlock()
	if v != nil {
		panic(v)
	}
	rest := fsapi.TextRest{Bytes: size - from}
	var last byte
	unchecked := false
	for u := range units {
		n, end, err, done := units[u].outcome()
		switch {
		case err != nil:
			return fsapi.TextRest{}, err
		case !done: // only when a later unit failed: its error follows
			unchecked = true
			continue
		}
		rest.Newlines += n
		if end >= 0 {
			last = byte(end)
		}
	}
	if unchecked {
		return fsapi.TextRest{}, errors.New("fslocal: a unit of the count was left unchecked")
	}
	rest.Unterminated = last != '\n'
	return rest, nil
}

// countUnitAt checks unit u of the rest of f that starts at from, reading
// it into buf (stop and ctx checked before each read), and returns its LF
// count and, when it is not empty and ends at size, its last byte (else end
// is -1). The unit's nominal range is the bytes [u·countUnit,
// (u+1)·countUnit) from from on, with each end moved to the next character
// start (boundary); the first unit starts at from, the last ends at size.
// Only the last unit can be empty (when the file ends within utf8.UTFMax-1
// continuation bytes of its nominal start), so exactly one unit reports the
// file's last byte.
func countUnitAt(ctx context.Context, f *os.File, size int64, display string, from, u int64, buf []byte, stop *atomic.Bool) (n int64, end int, err error) {
	lo, hi := max(from, u*countUnit), min(size, (u+1)*countUnit)
	if lo > from {
		if lo, err = boundary(f, lo, size, display); err != nil {
			return 0, -1, err
		}
	}
	if hi < size {
		if hi, err = boundary(f, hi, size, display); err != nil {
			return 0, -1, err
		}
	}
	end = -1
	for off := lo; off < hi; {
		if stop.Load() {
			return 0, -1, errStopped
		}
		if err := ctx.Err(); err != nil {
			return 0, -1, fsapi.ErrAborted("read", err)
		}
		want := int(min(int64(len(buf)), hi-off))
		b := buf[:want]
		if err := readFull(f, b, off); err != nil {
			return 0, -1, err
		}
		cut := want
		if off+int64(want) < hi {
			cut = completePrefix(b) // the next read starts at the cut character
		}
		lines, valid := lfscan.Count(b[:cut])
		if !valid {
			return 0, -1, fsapi.ErrInvalidUTF8("read", display)
		}
		n += int64(lines)
		if off+int64(want) == size {
			end = int(b[want-1])
		}
		off += int64(cut)
	}
	return n, end, nil
}

// boundary returns the first character start of f at or after at: at moved
// over at most utf8.UTFMax-1 continuation bytes (charStart), or size when
// the file ends first. A run of utf8.UTFMax continuation bytes, which no
// valid text holds, is FS_NOT_TEXT.
func boundary(f *os.File, at, size int64, display string) (int64, error) {
	var b [utf8.UTFMax]byte
	n := int(min(int64(len(b)), size-at))
	if err := readFull(f, b[:n], at); err != nil {
		return 0, err
	}
	k, ok := charStart(b[:n], 0)
	if !ok {
		return 0, fsapi.ErrInvalidUTF8("read", display)
	}
	return at + int64(k), nil
}

// readFull fills b from f at offset off; a file that ends first shrank
// since it was opened (errChangedWhileRead).
func readFull(f *os.File, b []byte, off int64) error {
	n, err := f.ReadAt(b, off)
	switch {
	case n == len(b):
		return nil
	case err == nil || errors.Is(err, io.EOF):
		return errChangedWhileRead
	}
	return err
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
