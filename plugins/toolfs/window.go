package toolfs

import (
	"iter"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dsh-go/dsh/internal/jsnum"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// line is one line of a read window: its 1-based number in the file and its
// text, with one trailing CR removed and truncated per contract §6.7.4
// (contract §6.2, §6.7.3).
type line struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
}

// readValue is the structured value of a read (contract §6.2, §6.7.2 step 6):
// the display path, the 1-based first line asked for, the collected lines and
// the exact number of lines in the file, or nil (null) when the window ended
// at the byte cap: the file was not read past it (§6.7.5a [D26]). Lines is
// never nil, so it marshals as `[]`.
type readValue struct {
	Path       string `json:"path"`
	Offset     int    `json:"offset"`
	Lines      []line `json:"lines"`
	TotalLines *int   `json:"totalLines"`
}

// windowSpec is what one read asks of the line window (contract §6.7.3).
// Every field must be at least 1; the tool validates them before scanning.
type windowSpec struct {
	// Offset is the validated offset argument: an integer ≥ 1 in lines,
	// possibly beyond the range of int (such an offset selects nothing and
	// is reported out of range with its JavaScript spelling, e.g. 1e+300).
	Offset float64
	// Limit is the most lines collected.
	Limit int
	// MaxLineLength is how many UTF-16 code units of a line are kept
	// (readMaxLineLength, contract §6.7.4).
	MaxLineLength int
	// MaxBytes caps the UTF-8 bytes of the collected line texts, one byte per
	// separating newline included (readMaxBytes).
	MaxBytes int
	// SizeHint, when positive, is the text's size in bytes: the collected
	// text is then allocated once, at most MaxBytes (plus room for a few
	// truncation suffixes), instead of growing line by line. 0 means unknown.
	// It is not used with StableChunks.
	SizeHint int64
	// StableChunks says the chunks are ordinary strings that stay valid
	// after the scan (not views of a mapping that is unmapped at its end):
	// a line that comes whole in one chunk is then kept as a piece of it,
	// without a copy. A read of a small file, one string, is.
	StableChunks bool
	// ValidText says the text is valid UTF-8 (a provider's ReadText
	// checked it whole), so a line that comes whole in one chunk needs no
	// check of its own.
	ValidText bool
}

// firstLine returns s.Offset as a line number, clamped to math.MaxInt.
func (s windowSpec) firstLine() int {
	if s.Offset >= math.MaxInt {
		return math.MaxInt
	}
	return int(s.Offset)
}

// lineScanner builds the line window of contract §6.7.3 from decoded text fed
// in chunks with Write, then Close. Its result does not depend on how the
// text is cut into chunks: a CR and its LF, or the bytes of one UTF-8
// character, may arrive in different chunks. Once the byte cap trips it
// takes no more text (Tripped; the caller stops reading, [D26]). Memory is
// bounded: of any line it keeps at most MaxLineLength+1 UTF-16 code units
// (at most three bytes per unit), and lines it will not collect are only
// counted, so a 300 MB line without a newline costs a few kilobytes. Bytes
// that are not valid UTF-8 (which a provider never streams) are read as
// one U+FFFD each, so the collected text is always valid UTF-8. A
// lineScanner is not safe for concurrent use; its zero value is not usable
// (use newLineScanner).
type lineScanner struct {
	spec  windowSpec
	first int // spec.Offset as a line number

	lines   []line // a line copied into text gets its Text at Close
	text    []byte // the copied lines' texts, back to back
	copied  []int  // the indexes in lines of the copied lines
	ends    []int  // the end of each copied line's text in text
	total   int    // lines seen so far
	used    int    // bytes collected so far, separators included
	tripped bool   // the byte cap tripped: nothing more is collected

	// The current segment: bytes since the last LF.
	open      bool   // the segment has at least one byte
	selected  bool   // the segment's line will be collected if it fits
	kept      []byte // its first ≤ MaxLineLength+1 units, as UTF-8
	keptUnits int    // UTF-16 units in kept
	cut       int    // byte length of the longest prefix of kept with ≤ MaxLineLength units
	overflow  bool   // a character did not fit in kept: the line is longer than MaxLineLength
	pend      [utf8.UTFMax]byte
	npend     int // bytes of a character cut by a chunk boundary, waiting for the rest

	whole   string // the line's text when it came whole from one chunk (isWhole)
	isWhole bool
}

// reserveLines makes room for the lines the window will collect of a text
// of about n lines, before any is collected, so that a window of 2,000
// lines is not grown (and zeroed) ten times over.
func (s *lineScanner) reserveLines(n int) {
	if want := min(n-s.first+1, s.spec.Limit); len(s.lines) == 0 && want > cap(s.lines) {
		s.lines = make([]line, 0, want)
	}
}

// newLineScanner returns a scanner for spec.
func newLineScanner(spec windowSpec) *lineScanner {
	s := &lineScanner{spec: spec, first: spec.firstLine(), lines: []line{}}
	if spec.SizeHint > 0 && spec.firstLine() == 1 && !spec.StableChunks {
		s.text = make([]byte, 0, min(spec.SizeHint, int64(spec.MaxBytes))+256)
	}
	s.selected = s.selects()
	return s
}

// selects reports whether the next line to start would be collected: the
// cap has not tripped, its number is at least the offset, and fewer than
// Limit lines are collected (contract §6.7.3 step 2).
func (s *lineScanner) selects() bool {
	return !s.tripped && s.total+1 >= s.first && len(s.lines) < s.spec.Limit
}

// Tripped reports whether the byte cap has tripped: the window is complete,
// its total is not stated, and the rest of the text is not needed (contract
// §6.7.5a [D26]).
func (s *lineScanner) Tripped() bool { return s.tripped }

// Write feeds the next chunk of decoded text; after the cap tripped it
// takes nothing.
func (s *lineScanner) Write(chunk string) {
	for len(chunk) > 0 && !s.tripped {
		if !s.selected {
			if len(s.lines) >= s.spec.Limit {
				// Every line is collected: the rest only needs its
				// newlines counted for the total.
				n := strings.Count(chunk, "\n")
				if n == 0 {
					s.open = true
					return
				}
				s.total += n
				s.open = chunk[len(chunk)-1] != '\n'
				return
			}
			i := strings.IndexByte(chunk, '\n')
			if i < 0 {
				s.open = true
				return
			}
			s.endLine()
			chunk = chunk[i+1:]
			continue
		}
		i := strings.IndexByte(chunk, '\n')
		if i < 0 {
			s.open = true
			s.keep(chunk, true)
			return
		}
		if i > 0 {
			s.open = true
		}
		if len(s.kept) == 0 && s.npend == 0 && !s.overflow && i <= s.spec.MaxLineLength && (s.spec.ValidText || utf8.ValidString(chunk[:i])) {
			// The whole line is in this chunk, valid and short enough that
			// it cannot be truncated (a UTF-16 unit takes at least a byte):
			// it is collected as it is, without going through kept.
			s.whole, s.isWhole = strings.TrimSuffix(chunk[:i], "\r"), true
		} else {
			s.keep(chunk[:i], false)
		}
		s.endLine()
		chunk = chunk[i+1:]
	}
}

// Close ends the text and returns the window. inRange is false when the
// offset lies past the end (contract §6.7.3 "At the end"): the cap did not
// trip, Offset > TotalLines, and not both TotalLines = 0 and Offset = 1.
// TotalLines is nil when the cap tripped. Path is left empty. The scanner
// must not be used afterwards.
func (s *lineScanner) Close() (v readValue, inRange bool) {
	if s.open && !s.tripped {
		if s.selected {
			s.keep("", false)
		}
		s.endLine() // a final segment without LF is a line only if non-empty
	}
	inRange = s.tripped || s.first <= s.total || (s.total == 0 && s.first == 1)
	all, start := string(s.text), 0 // one string for the window, not one per line
	for i, end := range s.ends {
		s.lines[s.copied[i]].Text = all[start:end]
		start = end
	}
	v = readValue{Offset: s.first, Lines: s.lines}
	if !s.tripped {
		total := s.total
		v.TotalLines = &total
	}
	return v, inRange
}

// scanWindow builds the window of one read from chunks (as fsapi.Stream
// yields them) and returns the read's value with Path set to displayPath.
// It stops at the first chunk error and returns it unchanged, and takes no
// chunk after the byte cap tripped [D26]. An offset past the end fails with
// FS_NOT_FOUND `offset <offset> is out of range for "<displayPath>"
// (<totalLines> lines)`. Contract §6.7.2 steps 3–4, §6.7.3.
func scanWindow(chunks iter.Seq2[string, error], spec windowSpec, displayPath string) (readValue, error) {
	s := newLineScanner(spec)
	for chunk, err := range chunks {
		if err != nil {
			return readValue{}, err
		}
		if s.Write(chunk); s.Tripped() {
			break
		}
	}
	return s.window(displayPath)
}

// window closes s and returns the read's value with Path set to
// displayPath, or FS_NOT_FOUND when the offset lies past the end (see
// scanWindow).
func (s *lineScanner) window(displayPath string) (readValue, error) {
	v, ok := s.Close()
	if !ok {
		return readValue{}, fsapi.ErrOffsetOutOfRange(jsnum.Format(s.spec.Offset), displayPath, *v.TotalLines, "lines")
	}
	v.Path = displayPath
	return v, nil
}

// endLine ends the current segment as one line: it counts it, collects it
// when selected and the byte cap allows (contract §6.7.3 steps 1–6), and
// starts the next segment.
func (s *lineScanner) endLine() {
	s.total++
	if s.selected {
		s.collect()
	}
	s.open = false
	s.kept = s.kept[:0]
	s.keptUnits, s.cut, s.npend = 0, 0, 0
	s.overflow = false
	s.whole, s.isWhole = "", false
	s.selected = s.selects()
}

// collect appends the finished line unless its cost would take the
// collected bytes over MaxBytes, which trips the cap instead.
func (s *lineScanner) collect() {
	if s.isWhole && s.spec.StableChunks {
		cost := len(s.whole)
		if len(s.lines) > 0 {
			cost++ // the newline that joins it to the previous line
		}
		if s.used+cost > s.spec.MaxBytes {
			s.tripped = true
			return
		}
		s.used += cost
		s.lines = append(s.lines, line{Number: s.total, Text: s.whole}) // a piece of the chunk: no copy
		return
	}
	start := len(s.text)
	s.text = s.appendLineText(s.text)
	cost := len(s.text) - start
	if len(s.lines) > 0 {
		cost++ // the newline that joins it to the previous line
	}
	if s.used+cost > s.spec.MaxBytes {
		s.text = s.text[:start]
		s.tripped = true
		return
	}
	s.used += cost
	s.copied = append(s.copied, len(s.lines))
	s.lines = append(s.lines, line{Number: s.total})
	s.ends = append(s.ends, len(s.text))
}

// appendLineText appends the finished line without its trailing CR,
// truncated to MaxLineLength units with the suffix of contract §6.7.4 when
// longer. The cut never splits a character [D6].
func (s *lineScanner) appendLineText(dst []byte) []byte {
	if s.isWhole {
		return append(dst, s.whole...)
	}
	m := s.spec.MaxLineLength
	if !s.overflow {
		kept, units := s.kept, s.keptUnits
		if n := len(kept); n > 0 && kept[n-1] == '\r' {
			kept, units = kept[:n-1], units-1
		}
		if units <= m {
			return append(dst, kept...)
		}
	}
	dst = append(dst, s.kept[:s.cut]...)
	return append(dst, truncationSuffix(m)...)
}

// truncationSuffix is what follows a truncated line (contract §6.7.4).
func truncationSuffix(maxLineLength int) string {
	return "... (line truncated to " + strconv.Itoa(maxLineLength) + " chars)"
}

// keep adds part, a piece of the current selected line, to kept until
// MaxLineLength+1 units are held. atChunkEnd says part ends where the chunk
// does, so a character cut there may continue in the next chunk; otherwise
// part ends at the line's LF (or the text's end) and a cut character is
// invalid.
func (s *lineScanner) keep(part string, atChunkEnd bool) {
	// Complete a character carried over from the previous chunk.
	for s.npend > 0 && !s.overflow {
		if len(part) == 0 {
			if !atChunkEnd {
				s.flushPending()
			}
			return
		}
		s.pend[s.npend] = part[0]
		buf := s.pend[:s.npend+1]
		if !utf8.FullRune(buf) {
			s.npend++
			part = part[1:]
			continue
		}
		r, n := utf8.DecodeRune(buf)
		if r == utf8.RuneError && n == 1 {
			s.flushPending() // part[0] does not continue it; read part[0] afresh
			break
		}
		if s.fits(runeUnits(r)) {
			s.kept = append(s.kept, buf...)
			s.added(runeUnits(r))
		}
		s.npend = 0
		part = part[1:]
	}
	m := s.spec.MaxLineLength
	for i := 0; i < len(part) && !s.overflow; {
		if part[i] < utf8.RuneSelf {
			// A run of ASCII: one byte, one unit.
			room := m + 1 - s.keptUnits
			j := i
			for j < len(part) && j-i < room && part[j] < utf8.RuneSelf {
				j++
			}
			if j == i {
				s.overflow = true
				break
			}
			before := s.keptUnits
			s.kept = append(s.kept, part[i:j]...)
			s.keptUnits += j - i
			switch {
			case s.keptUnits <= m:
				s.cut = len(s.kept)
			case before <= m:
				s.cut = len(s.kept) - (s.keptUnits - m)
			}
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(part[i:])
		if r == utf8.RuneError && n == 1 {
			if atChunkEnd && !utf8.FullRuneInString(part[i:]) {
				s.npend = copy(s.pend[:], part[i:]) // the rest comes in the next chunk
				return
			}
			if s.fits(1) {
				s.kept = append(s.kept, "\uFFFD"...)
				s.added(1)
			}
			i++
			continue
		}
		if s.fits(runeUnits(r)) {
			s.kept = append(s.kept, part[i:i+n]...)
			s.added(runeUnits(r))
		}
		i += n
	}
}

// flushPending reads the carried bytes as invalid: one U+FFFD each.
func (s *lineScanner) flushPending() {
	n := s.npend
	s.npend = 0
	for range n {
		if !s.fits(1) {
			return
		}
		s.kept = append(s.kept, "\uFFFD"...)
		s.added(1)
	}
}

// fits reports whether a character of w units still fits in kept; if not,
// the line is marked longer than MaxLineLength and nothing more is kept.
func (s *lineScanner) fits(w int) bool {
	if s.keptUnits+w > s.spec.MaxLineLength+1 {
		s.overflow = true
		s.npend = 0
		return false
	}
	return true
}

// added records a character of w units just appended to kept.
func (s *lineScanner) added(w int) {
	s.keptUnits += w
	if s.keptUnits <= s.spec.MaxLineLength {
		s.cut = len(s.kept)
	}
}

// runeUnits is the UTF-16 length of r: 2 above U+FFFF, else 1.
func runeUnits(r rune) int {
	if r > 0xFFFF {
		return 2
	}
	return 1
}
