package toolsearch

import (
	"strings"

	"github.com/dsh-go/dsh/internal/gitignore"
)

// ignoreLevel is the ignore files of one directory, in precedence order
// (`.ignore` before `.gitignore`, search.md §6.4.1).
type ignoreLevel struct {
	// Dir is the directory's path below the search root ("" for the root
	// and for directories above it).
	Dir string
	// Above is the path from the directory down to the search root ("" for
	// the root and directories below it), e.g. "sub/deep" for the ignore
	// files of B when the root is B/sub/deep.
	Above string
	// Files are the directory's ignore files, most important first.
	Files []*gitignore.Rules
}

// ignoreStack is the chain of ignore levels that apply to the entry being walked,
// shallowest first. The zero value ignores nothing. A walk pushes a level
// when it opens a directory with ignore files and trims the stack to the
// ancestors of each entry before asking.
type ignoreStack struct {
	levels []ignoreLevel
}

// Push adds the level of a directory opened below (or at) the last one.
func (s *ignoreStack) Push(l ignoreLevel) { s.levels = append(s.levels, l) }

// Trim drops the levels whose directory is not an ancestor of (or equal to)
// the directory holding the entry at path below the search root.
func (s *ignoreStack) Trim(path string) {
	for len(s.levels) > 0 {
		d := s.levels[len(s.levels)-1].Dir
		if d == "" || (strings.HasPrefix(path, d) && len(path) > len(d) && path[len(d)] == '/') {
			return
		}
		s.levels = s.levels[:len(s.levels)-1]
	}
}

// Ignored reports whether the entry at path below the search root is
// ignored (search.md §6.4.1): the levels are consulted from the deepest
// upwards, in each its files in order, and in a file the last matching ignoreRule
// counts; the first file with a matching ignoreRule decides. No match anywhere
// keeps the entry. Call Trim(path) first.
func (s *ignoreStack) Ignored(path string, isDir bool) bool {
	for i := len(s.levels) - 1; i >= 0; i-- {
		l := &s.levels[i]
		rel := path
		if l.Dir != "" {
			rel = path[len(l.Dir)+1:]
		} else if l.Above != "" {
			rel = l.Above + "/" + path
		}
		for _, f := range l.Files {
			if matched, ignore := f.Match(rel, isDir); matched {
				return ignore
			}
		}
	}
	return false
}

// Len returns the number of levels.
func (s *ignoreStack) Len() int { return len(s.levels) }
