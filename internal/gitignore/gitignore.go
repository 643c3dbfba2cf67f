// Package gitignore reads ignore files (`.gitignore`, `.ignore`) with git's
// rules, as search.md §6.4.1 states them, and matches paths against them
// with a byte-wise wildmatch of its own (wildmatch.go): `?` and classes
// match one byte, a `]` right after `[`, `[!` or `[^` is a member, POSIX
// classes work inside a class, braces are literal, `**` has git's forms
// [S11]. The search tools (plugins/toolsearch) stack the files of a walk.
package gitignore

import (
	"bytes"
	"strings"
)

// Rules are the rules of one ignore file, in file order.
type Rules struct {
	rules []rule
}

// rule is one pattern line.
type rule struct {
	pattern  string // the wildmatch pattern (escapes kept)
	negate   bool   // a leading "!"
	dirOnly  bool   // a trailing "/"
	anchored bool   // matched against the path relative to the file's directory
}

// Parse reads an ignore file (search.md §6.4.1): a leading UTF-8 BOM is
// removed; lines are split on LF, a trailing CR and trailing unescaped
// spaces are removed; blank lines and lines starting with `#` are skipped;
// `\#` and `\!` escape a leading `#` or `!`; a leading `!` negates; a
// trailing `/` makes the rule match directories only; a `/` at the start or
// in the middle anchors it to the file's directory. A rule whose pattern is
// malformed (a dangling `\`, an unclosed class, an unknown POSIX class)
// matches nothing.
func Parse(data []byte) *Rules {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	r := &Rules{}
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

// parseLine parses one line; false for a line that holds no rule.
func parseLine(line string) (rule, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return rule{}, false
	}
	var ru rule
	if line[0] == '!' {
		ru.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !escapedAt(line, len(line)-1) {
		ru.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return rule{}, false
	}
	if i := strings.IndexByte(line, '/'); i >= 0 {
		ru.anchored = true
		if i == 0 {
			line = line[1:]
			if line == "" {
				return rule{}, false
			}
		}
	}
	ru.pattern = line
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

// Len returns the number of rules.
func (r *Rules) Len() int { return len(r.rules) }

// Match returns the verdict of the last rule of r that matches the entry
// whose path relative to the file's directory is rel (with '/'
// separators), whose name is its last segment: matched reports whether any
// rule matched, and ignore whether that rule ignores (true) or re-includes
// (a negated rule, false). An anchored rule is matched against rel, any
// other against the name.
func (r *Rules) Match(rel string, isDir bool) (matched, ignore bool) {
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
		if Wildmatch(ru.pattern, subject) {
			return true, !ru.negate
		}
	}
	return false, false
}
