package gitignore

import "strings"

// Wildmatch reports whether text (a path with '/' separators) matches
// pattern as git matches an ignore rule (wildmatch in pathname mode,
// search.md §6.4.1 [S11]), byte by byte:
//
//   - `?` matches one byte other than '/'; `*` any run of bytes without
//     '/';
//   - `**` between slashes (or at either end of the pattern) matches across
//     them: a leading `**/` matches in every directory, `/**/` matches zero
//     or more directories, a trailing `/**` everything below (not the
//     directory itself); any other `**` is `*`;
//   - `[...]` matches one byte other than '/': members, ranges `a-z` (byte
//     values), `!` or `^` first negates, a `]` right after `[`, `[!` or
//     `[^` is a member, `\` escapes the next byte, and the POSIX classes
//     `[:alnum:]` ... `[:xdigit:]` (ASCII) work inside it;
//   - `\` makes the next byte literal; everything else, braces included,
//     is literal.
//
// A malformed pattern (a dangling `\`, an unclosed class, an unknown POSIX
// class name) matches nothing.
func Wildmatch(pattern, text string) bool {
	return (&wildmatch{p: pattern, t: text}).at(0, 0) == matched
}

// wildmatch is one match of p against t.
type wildmatch struct{ p, t string }

// outcome is the result of matching from one position.
type outcome uint8

const (
	noMatch outcome = iota
	matched
	// abortAll: nothing can match, whatever an enclosing `*` tries: the
	// pattern is malformed, or the text ran out before a byte the pattern
	// needs (a `*` consuming more only leaves less text).
	abortAll
	// abortToGlobstar: no later position of an enclosing single `*` can
	// match (the text holds a '/' none of them can cross); an enclosing
	// `**` still tries its next directory.
	abortToGlobstar
)

// at matches p[pi:] against t[ti:].
func (m *wildmatch) at(pi, ti int) outcome {
	p, t := m.p, m.t
	for pi < len(p) {
		c := p[pi]
		if c == '*' {
			return m.star(pi, ti)
		}
		if ti >= len(t) {
			return abortAll
		}
		switch c {
		case '\\':
			pi++
			if pi >= len(p) {
				return abortAll // a dangling backslash
			}
			if t[ti] != p[pi] {
				return noMatch
			}
			pi++
		case '?':
			if t[ti] == '/' {
				return noMatch
			}
			pi++
		case '[':
			next, member, bad := class(p, pi, t[ti])
			switch {
			case bad:
				return abortAll
			case !member:
				return noMatch
			}
			pi = next
		default:
			if t[ti] != c {
				return noMatch
			}
			pi++
		}
		ti++
	}
	if ti == len(t) {
		return matched
	}
	return noMatch
}

// star matches the run of `*` at p[pi:] and what follows against t[ti:].
func (m *wildmatch) star(pi, ti int) outcome {
	p, t := m.p, m.t
	start := pi
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	globstar := pi-start >= 2 && (start == 0 || p[start-1] == '/') && (pi == len(p) || p[pi] == '/')
	if globstar {
		if pi == len(p) {
			return matched // a trailing `**`: everything below
		}
		// `**/`: zero directories here, or every '/' of the text ends one
		// more of them.
		for j := ti - 1; j < len(t); j++ {
			if j >= ti && t[j] != '/' {
				continue
			}
			if r := m.at(pi+1, j+1); r == matched || r == abortAll {
				return r
			}
		}
		return noMatch
	}
	for ; ; ti++ {
		if r := m.at(pi, ti); r != noMatch {
			return r
		}
		switch {
		case ti >= len(t):
			return abortAll
		case t[ti] == '/':
			return abortToGlobstar
		}
	}
}

// class matches the byte b against the class that starts at p[i] ('['):
// next is the index after its closing ']', member whether b is in it
// (negation applied; '/' never is), bad whether the class is malformed
// (unclosed, a dangling `\`, an unknown `[:name:]`).
func class(p string, i int, b byte) (next int, member, bad bool) {
	i++
	negate := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negate {
		i++
	}
	in := false
	for first := true; ; first = false {
		if i >= len(p) {
			return 0, false, true
		}
		c := p[i]
		if c == ']' && !first {
			i++
			break
		}
		switch {
		case c == '\\':
			i++
			if i >= len(p) {
				return 0, false, true
			}
			c = p[i]
		case c == '[' && i+1 < len(p) && p[i+1] == ':':
			end := strings.IndexByte(p[i+2:], ']')
			if end < 0 {
				return 0, false, true
			}
			if name := p[i+2 : i+2+end]; strings.HasSuffix(name, ":") {
				ok, known := posixClass(name[:len(name)-1], b)
				if !known {
					return 0, false, true
				}
				in = in || ok
				i += 2 + end + 1
				continue
			}
			// No ":]" before the next ']': the '[' is a plain member.
		}
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			j := i + 2
			hi := p[j]
			if hi == '\\' {
				if j++; j >= len(p) {
					return 0, false, true
				}
				hi = p[j]
			}
			in = in || (c <= b && b <= hi)
			i = j + 1
			continue
		}
		in = in || b == c
		i++
	}
	if b == '/' {
		return i, false, false
	}
	return i, in != negate, false
}

// posixClass reports whether b is in the ASCII POSIX class name, and
// whether name is one.
func posixClass(name string, b byte) (in, known bool) {
	lower, upper, digit := 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9'
	punct := b >= '!' && b <= '~' && !lower && !upper && !digit
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return b == ' ' || b == '\t', true
	case "cntrl":
		return b < ' ' || b == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return b > ' ' && b < 0x7f, true
	case "lower":
		return lower, true
	case "print":
		return b >= ' ' && b < 0x7f, true
	case "punct":
		return punct, true
	case "space":
		return b == ' ' || (b >= '\t' && b <= '\r'), true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || ('a' <= b && b <= 'f') || ('A' <= b && b <= 'F'), true
	}
	return false, false
}
