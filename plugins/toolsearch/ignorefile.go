package toolsearch

import (
	"bytes"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Ignore files (`.gitignore`, `.ignore`) read with git's rules as
// search.md §6.4.1 states them, and whether a path is ignored by a stack of
// them, deepest directory first (ignorestack.go).
//
// Patterns are matched with doublestar after `{` and `}` are escaped (braces
// are literal in git), with git's anchoring, directory-only rules, `**`
// forms and negation. Not supported, as the spec leaves them out: POSIX
// character classes (`[[:alpha:]]`), `core.ignoreCase`.

// ignoreRules are the rules of one ignore file, in file order.
type ignoreRules struct {
	rules []ignoreRule
}

// ignoreRule is one pattern line.
type ignoreRule struct {
	expr     string // doublestar pattern, braces escaped
	negate   bool   // a leading "!"
	dirOnly  bool   // a trailing "/"
	anchored bool   // matched against the path relative to the file's directory
}

// parseIgnoreFile reads an ignore file (search.md §6.4.1): a leading UTF-8 BOM is
// removed; lines are split on LF, a trailing CR and trailing unescaped
// spaces are removed; blank lines and lines starting with `#` are skipped;
// `\#` and `\!` escape a leading `#` or `!`; a leading `!` negates. A ignoreRule
// whose glob is invalid once braces are escaped (a dangling `\`, an unclosed
// or empty class) is skipped.
func parseIgnoreFile(data []byte) *ignoreRules {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	r := &ignoreRules{}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if ru, ok := parseLine(string(line)); ok {
			r.rules = append(r.rules, ru)
		}
	}
	return r
}

// parseLine parses one line; false for a line that holds no ignoreRule.
func parseLine(line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	var ru ignoreRule
	if line[0] == '!' {
		ru.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !escapedAt(line, len(line)-1) {
		ru.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return ignoreRule{}, false
	}
	if i := strings.IndexByte(line, '/'); i >= 0 {
		ru.anchored = true
		if i == 0 {
			line = line[1:]
			if line == "" {
				return ignoreRule{}, false
			}
		}
	}
	expr := escapeBraces(line)
	if strings.HasSuffix(expr, "/**") && ru.anchored {
		// Everything inside the directory, not the directory itself.
		expr = expr[:len(expr)-len("/**")] + "/*/**"
	}
	if !doublestar.ValidatePattern(expr) {
		return ignoreRule{}, false
	}
	ru.expr = expr
	return ru, true
}

// trimTrailingSpaces removes trailing spaces not escaped by a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !escapedAt(s, len(s)-1) {
		s = s[:len(s)-1]
	}
	return s
}

// escapedAt reports whether s[i] is preceded by an odd number of
// backslashes.
func escapedAt(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// escapeBraces puts a backslash before every unescaped `{` and `}`, so
// doublestar reads them literally, as git does.
func escapeBraces(s string) string {
	if !strings.ContainsAny(s, "{}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			b.WriteByte(c)
			b.WriteByte(s[i+1])
			i++
			continue
		}
		if c == '{' || c == '}' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Len returns the number of rules.
func (r *ignoreRules) Len() int { return len(r.rules) }

// Match returns the verdict of the last ignoreRule of r that matches the entry
// whose path relative to the file's directory is rel (with '/'
// separators), whose name is its last segment: matched reports whether any
// ignoreRule matched, and ignore whether that ignoreRule ignores (true) or re-includes
// (a negated ignoreRule, false).
func (r *ignoreRules) Match(rel string, isDir bool) (matched, ignore bool) {
	name := rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		name = rel[i+1:]
	}
	for i := len(r.rules) - 1; i >= 0; i-- {
		ru := &r.rules[i]
		if ru.dirOnly && !isDir {
			continue
		}
		subject := name
		if ru.anchored {
			subject = rel
		}
		if doublestar.MatchUnvalidated(ru.expr, subject) {
			return true, !ru.negate
		}
	}
	return false, false
}
