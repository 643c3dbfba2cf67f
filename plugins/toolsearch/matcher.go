package toolsearch

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// matcher decides whether one line matches (search.md §6.5) and knows a
// literal every matching line must contain, so that a search can skip to
// the lines holding it instead of running the regexp on every line.
type matcher struct {
	re *regexp.Regexp
	// need is a byte string every matching line contains, or nil when the
	// pattern has none usable (case folding, alternations, classes): the
	// longest of the required literals, which a search skips to
	// (indexNeed).
	need []byte
	// rare is the offset in need of its rarest byte (byteRank), which
	// indexNeed looks for first.
	rare int
	// also are the other required literals, checked on a candidate line
	// before the regexp runs.
	also [][]byte
	// foldNeed, set only when need is nil, is an ASCII string (lowercase,
	// without k or s) that every matching line contains once its ASCII
	// letters are lowered: a piece of a case-folded literal whose letters
	// fold only to their ASCII other case (k and s also fold to U+212A and
	// U+017F, so they are left out).
	foldNeed []byte
	// anyOf, set only when need and foldNeed are nil, are literals one of
	// which every matching line contains: one per branch of a top-level
	// alternation (`TODO|FIXME`).
	anyOf [][]byte
	// prefix is the literal every match starts with, with no empty-width
	// assertion before it ([literalPrefix]), and anchored the same regexp anchored at the start
	// of its input, when prefix is not empty: candidateWithin tries a long
	// line at each occurrence of prefix.
	prefix   []byte
	anchored *regexp.Regexp
}

// compilePattern validates and compiles grep's pattern (search.md §6.2
// steps 7 and 8). The pattern is compiled as given for the error; the
// search uses it with the i flag when ignoreCase is set.
func compilePattern(pattern string, ignoreCase bool) (*matcher, error) {
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, errInvalidRegexp(strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil { // unreachable: regexp.Compile parsed it with the same flags
		return nil, errInvalidRegexp(err.Error())
	}
	if hasLineFeedLiteral(tree) {
		return nil, errLineBreak()
	}
	expr := pattern
	if ignoreCase {
		expr = "(?i)" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, errInvalidRegexp(strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	m := &matcher{re: re}
	if prefix := literalPrefix(expr); prefix != "" {
		if m.anchored, err = regexp.Compile(`\A(?:` + expr + `)`); err == nil {
			m.prefix = []byte(prefix)
		}
	}
	if ignoreCase {
		if tree, err = syntax.Parse(expr, syntax.Perl); err != nil {
			return nil, errInvalidRegexp(err.Error()) // unreachable: it compiled
		}
	}
	exact, folded := requiredLiterals(tree)
	if len(exact) > 0 {
		m.need, m.also = exact[0], exact[1:]
		m.rare = rarestByte(m.need)
	} else if frag := foldFragment(folded); len(frag) >= 2 {
		m.foldNeed = frag
	} else {
		m.anyOf = branchLiterals(tree)
	}
	return m, nil
}

// hasLineFeedLiteral reports whether the parse tree has an OpLiteral node
// holding '\n' (search.md §6.2 step 8).
func hasLineFeedLiteral(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if hasLineFeedLiteral(sub) {
			return true
		}
	}
	return false
}

// requiredLiterals returns the literals that every match of re must
// contain: re itself when it is a literal, else the literal factors of a
// top-level concatenation (through captures). The case-sensitive ones come
// as bytes, longest first; the case-folded ones as runes.
func requiredLiterals(re *syntax.Regexp) (exact [][]byte, folded [][]rune) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	factors := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		factors = re.Sub
	}
	for _, r := range factors {
		for r.Op == syntax.OpCapture {
			r = r.Sub[0]
		}
		switch {
		case r.Op != syntax.OpLiteral || slices.Contains(r.Rune, utf8.RuneError):
			// Not a literal; or U+FFFD, which also matches each invalid byte.
		case r.Flags&syntax.FoldCase != 0:
			folded = append(folded, r.Rune)
		default:
			exact = append(exact, []byte(string(r.Rune)))
		}
	}
	slices.SortStableFunc(exact, func(a, b []byte) int { return len(b) - len(a) })
	return exact, folded
}

// branchLiterals returns, for an alternation (through captures), one
// case-sensitive literal per branch that every match of that branch
// contains, nested alternations flattened; nil when some branch has none.
func branchLiterals(re *syntax.Regexp) [][]byte {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpAlternate {
		return nil
	}
	var out [][]byte
	for _, sub := range re.Sub {
		if exact, _ := requiredLiterals(sub); len(exact) > 0 {
			out = append(out, exact[0])
			continue
		}
		nested := branchLiterals(sub)
		if nested == nil {
			return nil
		}
		out = append(out, nested...)
	}
	return out
}

// foldFragment returns the longest run, lowered, of ASCII runes other than
// k and s (in either case) in the case-folded literals: after lowering a
// line's ASCII letters, every match of such a literal contains it.
func foldFragment(folded [][]rune) []byte {
	var best []byte
	for _, lit := range folded {
		var cur []byte
		for i := 0; i <= len(lit); i++ {
			if i < len(lit) {
				r := lowerASCII(lit[i])
				if r < utf8.RuneSelf && r != 'k' && r != 's' {
					cur = append(cur, byte(r))
					continue
				}
			}
			if len(cur) > len(best) {
				best = cur
			}
			cur = nil
		}
	}
	return best
}

// lowerASCII lowers an ASCII capital letter and leaves every other rune.
func lowerASCII(r rune) rune {
	if 'A' <= r && r <= 'Z' {
		return r + ('a' - 'A')
	}
	return r
}

// lowerInto writes src with its ASCII capital letters lowered into dst
// (grown as needed) and returns it; byte offsets are unchanged.
func lowerInto(dst, src []byte) []byte {
	dst = slices.Grow(dst[:0], len(src))[:len(src)]
	for i, c := range src {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}

// candidate reports whether a line (without its line ending) matches,
// given that it holds need: the other literals are checked first, then the
// regexp decides.
func (m *matcher) candidate(line []byte) bool {
	for _, l := range m.also {
		if !bytes.Contains(line, l) {
			return false
		}
	}
	return m.re.Match(line)
}

// candidateWithin is candidate for a long line, with the budget checked at
// least every readSize bytes the regexp consumes (search.md §4.8): the
// regexp reads the line through a [budgetReader], which ends the input
// early once the budget is done. stopped reports that it was, and then
// matched means nothing. The result is otherwise the one candidate gives:
// the reader hands the regexp the same runes (an invalid byte is one
// U+FFFD of width 1 either way) and the line's end is the input's end.
func (m *matcher) candidateWithin(budget context.Context, line []byte) (matched, stopped bool) {
	for _, l := range m.also {
		if !bytes.Contains(line, l) {
			return false, false
		}
	}
	from := 0
	if m.prefix != nil {
		var done bool
		if matched, stopped, done, from = m.atPrefixes(budget, line); done {
			return matched, stopped
		}
	}
	// A match starting at from or later: since every match starts with
	// prefix (a rune, not an empty-width assertion), the text before from
	// is no context the regexp looks at.
	br := &budgetReader{budget: budget, r: bytes.NewReader(line[from:]), left: readSize}
	matched = m.re.MatchReader(br)
	return matched && !br.stopped, br.stopped
}

// atPrefixes tries the anchored regexp at each occurrence of prefix in
// line (the only places a match can start), as regexp's own prefix scan
// does for a byte slice, which a reader cannot. Each try stops when no
// match can continue, but one like `x.*y` may read to the end of the line
// each time, so once the tries have read twice the line's length it gives
// up (done false) and returns the offset of the occurrence not yet tried,
// from which one unanchored pass decides in linear time.
func (m *matcher) atPrefixes(budget context.Context, line []byte) (matched, stopped, done bool, from int) {
	read := 0
	br := &budgetReader{budget: budget, r: bytes.NewReader(nil)}
	for pos, tries := 0, 0; ; tries++ {
		i := bytes.Index(line[pos:], m.prefix)
		if i < 0 {
			return false, false, true, 0
		}
		pos += i
		if tries%256 == 0 && budget.Err() != nil {
			return false, true, true, 0
		}
		if read > 2*len(line) {
			return false, false, false, pos
		}
		br.r.Reset(line[pos:])
		br.left, br.read = readSize, 0
		if m.anchored.MatchReader(br) && !br.stopped {
			return true, false, true, 0
		}
		if br.stopped {
			return false, true, true, 0
		}
		read += br.read + 1
		pos++
	}
}

// budgetReader is an [io.RuneReader] over a line that checks a budget
// every readSize bytes and reports the end of input once it is done.
type budgetReader struct {
	budget  context.Context
	r       *bytes.Reader
	left    int // bytes until the next check
	read    int // bytes handed out
	stopped bool
}

// ReadRune returns the next rune as bytes.Reader does, or io.EOF once the
// budget is done (stopped is then set).
func (b *budgetReader) ReadRune() (rune, int, error) {
	if b.stopped {
		return 0, 0, io.EOF
	}
	if b.left <= 0 {
		if b.budget.Err() != nil {
			b.stopped = true
			return 0, 0, io.EOF
		}
		b.left = readSize
	}
	r, n, err := b.r.ReadRune()
	b.left -= n
	b.read += n
	return r, n, err
}

// literalPrefix returns the literal that every match of expr starts with
// when the program's first step is a case-sensitive rune (syntax.Prog's
// Prefix), else "". Not regexp's LiteralPrefix: for `^foo` that skips the
// `^` and says "foo", but a match of `^foo` cannot start at any "foo".
func literalPrefix(expr string) string {
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return ""
	}
	prefix, _ := prog.Prefix()
	return prefix
}

// indexNeed returns the offset of the first occurrence of m.need in data,
// or -1, as bytes.Index does. It looks for need's rarest byte with
// bytes.IndexByte and checks need around each hit, as ripgrep's prefilter
// does: in source text a literal's first byte is often common (`e` of
// `errors.New(`), and each of its occurrences would be a candidate.
func (m *matcher) indexNeed(data []byte) int {
	need, off := m.need, m.rare
	for p := off; p < len(data); {
		i := bytes.IndexByte(data[p:], need[off])
		if i < 0 {
			return -1
		}
		p += i
		start := p - off
		if start+len(need) > len(data) {
			return -1
		}
		if bytes.Equal(data[start:start+len(need)], need) {
			return start
		}
		p++
	}
	return -1
}

// rarestByte returns the offset of the byte of lit that byteRank says is
// least common in text, the first of equals.
func rarestByte(lit []byte) int {
	best := 0
	for i, c := range lit {
		if byteRank[c] < byteRank[lit[best]] {
			best = i
		}
	}
	return best
}

// byteRank orders bytes by how common they are in source code and prose:
// higher is more common; a byte not listed is rare (0). The order is
// approximate, and only decides which byte of a literal is searched for
// first: the result of indexNeed does not depend on it.
var byteRank = func() (rank [256]uint8) {
	const common = " etaonisrhldcu\nmfpg,.ywb\t_v()k=\";:/-x{}01*'>#2jqz<[]"
	for i := range len(common) {
		rank[common[i]] = uint8(len(common) - i)
	}
	for c := 'A'; c <= 'Z'; c++ {
		if rank[c] == 0 {
			rank[c] = 8 // capitals: less common than any lower-case letter listed
		}
	}
	return rank
}()
