package protectedpaths

import (
	"path"
	"strings"
)

// pattern is one compiled form of a rule: its segments, rooted at `/`.
type pattern []string

// segments splits a clean absolute (or relative) slash path into its
// segments; "/" and "" have none.
func segments(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// hasMeta reports whether a segment uses any path.Match syntax.
func hasMeta(seg string) bool { return strings.ContainsAny(seg, `*?[\`) }

// literalPrefix splits a cleaned pattern into its leading segments without
// glob syntax (a path that can be resolved) and the rest.
func literalPrefix(p string) (prefix string, rest []string) {
	abs := strings.HasPrefix(p, "/")
	segs := segments(p)
	i := 0
	for i < len(segs) && !hasMeta(segs[i]) {
		i++
	}
	prefix = strings.Join(segs[:i], "/")
	if abs {
		prefix = "/" + prefix
	}
	return prefix, segs[i:]
}

// matches reports whether the pattern matches the absolute path p or one of
// its ancestor directories: protecting a directory protects its contents.
func (pt pattern) matches(p string) bool { return matchSegments(pt, segments(path.Clean("/"+p))) }

// matchSegments matches pattern segments against a prefix of path
// segments; a `**` segment matches zero or more path segments.
func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchSegments(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return true
}
