package toolsearch

import (
	"bytes"
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
	// longest of the required literals, which a search skips to.
	need []byte
	// also are the other required literals, checked on a candidate line
	// before the regexp runs.
	also [][]byte
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
	if !ignoreCase {
		if lits := requiredLiterals(tree); len(lits) > 0 {
			m.need, m.also = lits[0], lits[1:]
		}
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

// requiredLiterals returns case-sensitive literals that every match of re
// must contain, longest first: re itself when it is a literal, else the
// literal factors of a top-level concatenation (through captures). None
// when there is no such literal.
func requiredLiterals(re *syntax.Regexp) [][]byte {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	lit := func(r *syntax.Regexp) []byte {
		for r.Op == syntax.OpCapture {
			r = r.Sub[0]
		}
		if r.Op != syntax.OpLiteral || r.Flags&syntax.FoldCase != 0 || slices.Contains(r.Rune, utf8.RuneError) {
			return nil // U+FFFD also matches each invalid byte
		}
		return []byte(string(r.Rune))
	}
	var out [][]byte
	switch re.Op {
	case syntax.OpLiteral:
		if l := lit(re); l != nil {
			out = append(out, l)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if l := lit(sub); l != nil {
				out = append(out, l)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b []byte) int { return len(b) - len(a) })
	return out
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
