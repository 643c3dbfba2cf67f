package fslocal

import (
	"context"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"

	"github.com/dsh-go/dsh/internal/lfscan"
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

// countGoroutines caps the goroutines of countRest: past a few cores the
// memory bandwidth, not the cores, bounds the count, and the cap bounds the
// resident file bytes (one unit per goroutine) on any machine.
const countGoroutines = 4

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

// countRest checks the file's bytes from from, a character boundary, to its
// end as scan checks them (strict UTF-8, ctx before every chunk; contract
// §3.5) and counts their LF bytes, both in one pass where the text is ASCII
// (lfscan.Count).
//
// The range is cut into units at multiples of countUnit; up to GOMAXPROCS
// goroutines (at most countGoroutines), the caller one of them, take the
// units in file order from a shared counter, and each maps its unit, checks
// and counts it, and unmaps it: the resident file bytes stay one unit per
// goroutine. Each cut between units is moved to the next character start
// (charStart), the same for the units on both sides; valid UTF-8 is closed
// under concatenation and every cut of valid text falls between
// characters, so the units all pass exactly when the whole rest does.
//
// The caller never waits for another goroutine: once no unit is left to
// take, it checks itself every unit still unfinished (one whose goroutine
// the system has not run lately, on a busy machine, or one half done), and
// returns; a goroutine still busy then stops at its next chunk, and
// whatever it finds is ignored. Waiting cost up to 107 ms in 30 reads of
// 200 MB at a load average of 9 (a helper's thread preempted holding a
// unit); checking a unit twice costs at most a unit's time, well under a
// millisecond.
//
// When a unit fails, the others stop at their next chunk and the error of
// the first failed unit in file order is returned: FS_NOT_TEXT, FS_ABORTED,
// errChangedWhileRead when the file shrank (every goroutine turns memory
// faults into errors, so a truncation never crashes the process), or the
// mapping's error. Any other panic, in the caller or in a goroutine before
// the caller is done, is raised again on the caller.
func (m mapping) countRest(ctx context.Context, from int64) (fsapi.TextRest, error) {
	if from >= m.size {
		return fsapi.TextRest{}, nil
	}
	first := from / countUnit // units are aligned to countUnit in the file
	units := make([]unitCount, (m.size+countUnit-1)/countUnit-first)
	hook := unitHook // read once: helpers may outlive the call
	var (
		next     atomic.Int64 // the next unit to take
		stop     atomic.Bool  // a unit failed, or the caller is done
		mu       sync.Mutex
		panicked any
	)
	// check checks unit u and records it; false when it was stopped.
	check := func(u int) bool {
		n, end, err := m.countUnitAt(ctx, from, first+int64(u), &stop)
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
	work := func(caller bool) {
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
			u := int(next.Add(1) - 1)
			if u >= len(units) {
				return
			}
			hook(u, caller)
			if !check(u) {
				return
			}
		}
	}
	for range min(runtime.GOMAXPROCS(0), countGoroutines, len(units)) - 1 {
		go work(false)
	}
	work(true)
	func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		for u := range units {
			if _, _, _, done := units[u].outcome(); !done && !check(u) {
				return
			}
		}
	}()
	stop.Store(true)
	mu.Lock()
	v := panicked
	mu.Unlock()
	if v != nil {
		panic(v)
	}
	rest := fsapi.TextRest{Bytes: m.size - from}
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
	b, err := m.mmap(base, int(min(m.size, hi+utf8.UTFMax)-base))
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
			lines, valid = lfscan.Count(b[off : off+k])
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
