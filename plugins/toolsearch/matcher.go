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
	if ignoreCase {
		if tree, err = syntax.Parse(expr, syntax.Perl); err != nil {
			return nil, errInvalidRegexp(err.Error()) // unreachable: it compiled
		}
	}
	exact, folded := requiredLiterals(tree)
	if len(exact) > 0 {
		m.need, m.also = exact[0], exact[1:]
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
