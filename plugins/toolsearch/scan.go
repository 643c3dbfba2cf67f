package toolsearch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"unicode/utf8"
)

// sniffLen is how many leading bytes are searched for NUL to call a file
// binary (search.md §6.4 rule 9).
const sniffLen = 8192

// readSize is the most bytes one read takes: the unit between two checks of
// the time budget (search.md §4.8: at least every 64 KiB).
const readSize = 64 << 10

// lineMatch is one matched line: its 1-based number and its preview.
type lineMatch struct {
	number int
	line   string
}

// scanOptions tune one file's scan.
type scanOptions struct {
	binary     bool  // skip the file when its first 8192 bytes hold a NUL
	limit      int64 // read at most this many bytes (fileMaxBytes)
	sizeHint   int64 // the file's size when known, to size a long line's buffer once
	maxMatches int   // stop after collecting this many matches
	previewMax int   // grepMaxLineBytes
}

// scanResult is what a scan found.
type scanResult struct {
	matches    []lineMatch
	binary     bool  // skipped as binary; no matches
	unfinished bool  // the budget ran out before the end
	err        error // a read failed; matches found before it are kept
}

// scanner searches one file's lines with a reusable buffer (search.md §6.5).
type scanner struct {
	m     *matcher
	buf   []byte
	lower []byte // lineState's scratch, kept between files
}

// keepBuffer is the largest buffer a scanner keeps between files; a longer
// line's buffer is dropped after its file.
const keepBuffer = 1 << 20

// scan reads r to its end (or opts.limit bytes) and collects the matching
// lines in order. The budget is checked before every read.
func (s *scanner) scan(budget context.Context, r io.Reader, opts scanOptions) scanResult {
	if cap(s.buf) < 4*readSize {
		s.buf = make([]byte, 0, 4*readSize)
	}
	defer func() {
		if cap(s.buf) > keepBuffer {
			s.buf = nil
		}
	}()
	st := lineState{m: s.m, opts: &opts, number: 1, first: true, lower: s.lower, budget: budget}
	defer func() {
		if s.lower = st.lower; cap(s.lower) > keepBuffer {
			s.lower = nil
		}
	}()
	buf := s.buf[:0]
	var total int64
	unsearched := 0 // buf[:unsearched] has been searched for LF
	sniffed := !opts.binary
	eof := false
	var res scanResult
	for !eof && !st.full() && !st.stopped {
		if budget.Err() != nil {
			res.unfinished = true
			break
		}
		if st.start > 0 && cap(buf)-len(buf) < readSize {
			n := copy(buf, buf[st.start:])
			buf = buf[:n]
			unsearched -= st.start
			st.start = 0
		}
		if cap(buf)-len(buf) < readSize {
			want := max(2*cap(buf), len(buf)+readSize)
			if hint := min(opts.sizeHint, opts.limit) - total; hint > 0 && int64(len(buf))+hint+readSize > int64(want) {
				// One allocation for a long line of a file whose size is
				// known: the rest of the file plus room for the read that
				// sees its end.
				want = len(buf) + int(hint) + readSize
			}
			grown := make([]byte, len(buf), want)
			copy(grown, buf)
			buf = grown
		}
		want := int64(readSize)
		if left := opts.limit - total; left < want {
			want = left
		}
		if want <= 0 {
			eof = true
		} else {
			n, err := r.Read(buf[len(buf) : len(buf)+int(want)])
			buf = buf[:len(buf)+n]
			total += int64(n)
			switch {
			case errors.Is(err, io.EOF):
				eof = true
			case err != nil:
				res.err = err
				eof = true
			}
		}
		if !sniffed {
			if len(buf) < sniffLen && !eof {
				continue
			}
			sniffed = true
			if bytes.IndexByte(buf[:min(len(buf), sniffLen)], 0) >= 0 {
				s.buf = buf
				return scanResult{binary: true}
			}
		}
		// Only the bytes read since the last look can hold a new LF: a
		// long line is scanned once, not once per read.
		end := st.start
		if i := bytes.LastIndexByte(buf[unsearched:], '\n'); i >= 0 {
			end = unsearched + i + 1
		}
		unsearched = len(buf)
		if eof {
			end = len(buf)
		}
		st.lines(buf[st.start:end], eof)
		st.start = end
	}
	if st.stopped {
		res.unfinished = true
	}
	s.buf = buf
	res.matches = st.matches
	return res
}

// lineState walks the lines of a file's content region by region.
type lineState struct {
	m       *matcher
	opts    *scanOptions
	start   int  // offset in the buffer of the first unprocessed byte
	number  int  // number of the line that starts at start
	first   bool // the next line is the file's first (its BOM is removed)
	matches []lineMatch
	lower   []byte // scratch: a region with its ASCII letters lowered
	// budget is checked while the regexp runs over a line longer than
	// readSize; stopped is set when it ran out there, and that line is
	// not counted (search.md §4.8).
	budget  context.Context
	stopped bool
}

// full reports whether the scan should take no more lines: enough matches,
// or the budget ran out inside a long line.
func (st *lineState) full() bool { return st.stopped || len(st.matches) >= st.opts.maxMatches }

// lines handles data, whole lines ending in LF, plus at the end of the file
// a final segment without LF, which is a line only when non-empty. With a
// required literal it skips straight to the lines holding it.
func (st *lineState) lines(data []byte, eof bool) {
	var find func(from int) int
	switch m := st.m; {
	case m.need != nil:
		find = func(from int) int { return m.indexNeed(data[from:]) }
	case m.foldNeed != nil:
		st.lower = lowerInto(st.lower, data)
		lower := st.lower
		find = func(from int) int { return bytes.Index(lower[from:], m.foldNeed) }
	case m.anyOf != nil:
		find = nextOfAny(data, m.anyOf)
	}
	if find != nil {
		pos := 0
		for !st.full() {
			i := find(pos)
			if i < 0 {
				break
			}
			i += pos
			ls := bytes.LastIndexByte(data[:i], '\n') + 1
			st.skip(data[pos:ls])
			le := bytes.IndexByte(data[i:], '\n')
			if le < 0 {
				le = len(data)
			} else {
				le += i
			}
			st.line(data[ls:le])
			pos = le + 1
			if pos > len(data) {
				return
			}
		}
		st.skip(data[pos:])
		return
	}
	for len(data) > 0 && !st.full() {
		le := bytes.IndexByte(data, '\n')
		if le < 0 {
			st.line(data)
			return
		}
		st.line(data[:le])
		data = data[le+1:]
	}
}

// nextOfAny returns a finder of the first occurrence, at or after from, of
// any of lits in data (as an offset from from, or -1). Each literal's next
// occurrence is remembered, so a region is scanned once per literal however
// many candidates it holds; from must not decrease between calls.
func nextOfAny(data []byte, lits [][]byte) func(from int) int {
	const unknown = -2
	next := make([]int, len(lits))
	for k := range next {
		next[k] = unknown
	}
	return func(from int) int {
		best := -1
		for k, lit := range lits {
			if next[k] != -1 && next[k] < from {
				if j := bytes.Index(data[from:], lit); j >= 0 {
					next[k] = from + j
				} else {
					next[k] = -1
				}
			}
			if next[k] >= 0 && (best < 0 || next[k] < best) {
				best = next[k]
			}
		}
		if best < 0 {
			return -1
		}
		return best - from
	}
}

// skip passes over whole lines that cannot match.
func (st *lineState) skip(data []byte) {
	if len(data) == 0 {
		return
	}
	st.number += bytes.Count(data, []byte{'\n'})
	st.first = false
}

// line tests one line (without its LF) and counts it.
func (st *lineState) line(raw []byte) {
	line := raw
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if st.first {
		line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		st.first = false
	}
	matched := false
	if len(line) > readSize {
		matched, st.stopped = st.m.candidateWithin(st.budget, line)
		if st.stopped {
			return
		}
	} else {
		matched = st.m.candidate(line)
	}
	if matched {
		st.matches = append(st.matches, lineMatch{number: st.number, line: preview(line, st.opts.previewMax)})
	}
	st.number++
}

// preview returns a matched line's preview (search.md §6.6).
func preview(line []byte, max int) string {
	if !utf8.Valid(line) {
		return "(line is not valid UTF-8)"
	}
	if len(line) <= max {
		return string(line)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return string(line[:cut]) + " (line truncated)"
}
