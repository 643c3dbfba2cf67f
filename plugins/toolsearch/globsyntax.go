package toolsearch

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// The glob pattern language of the search tools (search.md §4.5):
// doublestar's syntax, our anchoring rules and a validator that names the
// first problem of an invalid pattern.

// The reasons validateGlob reports (search.md §4.5).
const (
	reasonDanglingEscape = `dangling '\'`
	reasonUnclosedClass  = "unclosed character class; missing ']'"
	reasonEmptyClass     = "empty character class"
	reasonUnopenedAlt    = "unopened alternate group; unexpected '}'"
	reasonUnclosedAlt    = "unclosed alternate group; missing '}'"
	// reasonTooManyAlternatives is compileGlob's reason for a valid pattern
	// whose braces expand to more than maxGlobExpansions patterns.
	reasonTooManyAlternatives = "its braces expand to more than 1024 patterns"
)

// maxGlobExpansions is the most brace-free patterns a pattern's braces may
// expand to (`{a,b}{c,d}` expands to 4, `{a,{b,c}}` to 3). doublestar
// matches a brace group by trying each alternative with the rest of the
// pattern, so one match costs up to that many brace-free matches:
// `{a,a}` twenty-four times over took 16 s per name. Our bound, beyond
// search.md §4.5, documented in docs/search.md.
const maxGlobExpansions = 1024

// validateGlob scans pattern left to right and returns the first problem found,
// or "" when the pattern is valid (search.md §4.5): a trailing `\`; a `[`
// never closed by `]` (inside a class a `\` escapes the next character, and
// one that ends the pattern reports the unclosed class); a class with no
// members (`[]`, `[!]`, `[^]`); a `}` with no open `{`; a `{` still open at
// the end. It rejects exactly what doublestar.ValidatePattern rejects.
func validateGlob(pattern string) string {
	depth := 0
	n := len(pattern)
	for i := 0; i < n; i++ {
		switch pattern[i] {
		case '\\':
			i++
			if i >= n {
				return reasonDanglingEscape
			}
		case '[':
			i++
			if i < n && (pattern[i] == '!' || pattern[i] == '^') {
				i++
			}
			if i >= n {
				return reasonUnclosedClass
			}
			if pattern[i] == ']' {
				return reasonEmptyClass
			}
			closed := false
			for ; i < n; i++ {
				if pattern[i] == '\\' {
					i++
				} else if pattern[i] == ']' {
					closed = true
					break
				}
			}
			if !closed {
				return reasonUnclosedClass
			}
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return reasonUnopenedAlt
			}
			depth--
		}
	}
	if depth > 0 {
		return reasonUnclosedAlt
	}
	return ""
}

// globPattern is a validated glob with its anchoring decided (search.md §4.5).
// The zero value matches nothing.
type globPattern struct {
	expr     string // the pattern after removing leading "/" and "./"
	anchored bool   // matched against the whole path, else against the name
	none     bool   // ends with "/" or is empty after the prefix removal
}

// compileGlob validates pattern, refuses one whose braces expand to more than
// maxGlobExpansions patterns (reasonTooManyAlternatives), and applies the
// anchoring rules: while the
// pattern starts with `/` or `./` that prefix is removed and the pattern is
// anchored; a pattern holding `/` anywhere is anchored too; one that ends
// with `/` or is empty after the removal matches no file. It returns the
// validateGlob reason for an invalid pattern.
func compileGlob(pattern string) (globPattern, string) {
	if reason := validateGlob(pattern); reason != "" {
		return globPattern{}, reason
	}
	if globExpansions(pattern) > maxGlobExpansions {
		return globPattern{}, reasonTooManyAlternatives
	}
	p := globPattern{expr: pattern}
	for {
		switch {
		case strings.HasPrefix(p.expr, "/"):
			p.expr, p.anchored = p.expr[1:], true
			continue
		case strings.HasPrefix(p.expr, "./"):
			p.expr, p.anchored = p.expr[2:], true
			continue
		}
		break
	}
	if strings.Contains(p.expr, "/") {
		p.anchored = true
	}
	p.none = p.expr == "" || strings.HasSuffix(p.expr, "/")
	return p, ""
}

// Anchored reports whether the pattern is matched against the whole path.
func (p globPattern) Anchored() bool { return p.anchored }

// Match reports whether a file whose path below the search root is rel
// (with '/' separators) and whose name is name matches: an anchored pattern
// against rel, any other against name.
func (p globPattern) Match(rel, name string) bool {
	if p.none {
		return false
	}
	if p.anchored {
		return doublestar.MatchUnvalidated(p.expr, rel)
	}
	return doublestar.MatchUnvalidated(p.expr, name)
}

// hasListComma reports whether include has a comma outside braces and
// outside `[...]` classes (search.md §6.2 step 5). Braces are counted
// literally ({ opens, } closes, never below zero) and a backslash escapes
// nothing, so `a\,b` is a list; classes are skipped as validateGlob scans them.
func hasListComma(include string) bool {
	depth := 0
	n := len(include)
	for i := 0; i < n; i++ {
		switch include[i] {
		case '[':
			j := i + 1
			if j < n && (include[j] == '!' || include[j] == '^') {
				j++
			}
			if j < n && include[j] == ']' {
				continue // an empty class: the `]` is not a closer here
			}
			for ; j < n; j++ {
				if include[j] == '\\' {
					j++
				} else if include[j] == ']' {
					break
				}
			}
			i = j // an unclosed class runs to the end, as validateGlob scans it
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

// globExpansions returns how many brace-free patterns the braces of the valid
// pattern expand to: the product over its brace groups of the sum over
// each group's alternatives of their own expansions (nested groups
// count within their alternative). Braces and commas are found as
// doublestar finds them: a backslash escapes the next byte and a `[...]`
// class is skipped. The count stops growing past maxGlobExpansions (it then
// returns maxGlobExpansions+1), so it is cheap for any pattern.
func globExpansions(pattern string) int {
	n := 1
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(pattern, i)
		case '{':
			alts, end := group(pattern, i)
			sum := 0
			for _, alt := range alts {
				sum = min(sum+globExpansions(alt), maxGlobExpansions+1)
			}
			n = min(n*sum, maxGlobExpansions+1)
			i = end
		}
	}
	return n
}

// classEnd returns the index of the `]` closing the class that opens at
// pattern[open] (or len(pattern)), skipping escaped bytes.
func classEnd(pattern string, open int) int {
	i := open + 1
	for ; i < len(pattern); i++ {
		if pattern[i] == '\\' {
			i++
		} else if pattern[i] == ']' {
			break
		}
	}
	return i
}

// group splits the brace group opening at pattern[open] into its
// alternatives (at its top-level commas) and returns the index of its
// closing `}` (len(pattern) when there is none).
func group(pattern string, open int) (alts []string, end int) {
	depth, start := 0, open+1
	for i := open + 1; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(pattern, i)
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return append(alts, pattern[start:i]), i
			}
			depth--
		case ',':
			if depth == 0 {
				alts = append(alts, pattern[start:i])
				start = i + 1
			}
		}
	}
	return append(alts, pattern[start:]), len(pattern)
}
