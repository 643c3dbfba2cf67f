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
	// pattern has none usable (case folding, alternations, classes).
	need []byte
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
		m.need = requiredLiteral(tree)
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

// requiredLiteral returns the longest case-sensitive literal that every
// match of re must contain: re itself when it is a literal, else the
// longest literal among the factors of a top-level concatenation (through
// captures). Nil when there is none.
func requiredLiteral(re *syntax.Regexp) []byte {
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
	switch re.Op {
	case syntax.OpLiteral:
		return lit(re)
	case syntax.OpConcat:
		var best []byte
		for _, sub := range re.Sub {
			if l := lit(sub); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return nil
}

// match reports whether line (without its line ending) matches.
func (m *matcher) match(line []byte) bool {
	if m.need != nil && !bytes.Contains(line, m.need) {
		return false
	}
	return m.re.Match(line)
}
