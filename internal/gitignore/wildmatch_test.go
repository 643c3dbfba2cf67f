package gitignore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Wildmatch matches as git does in ignore files (search.md §6.4.1 [S11]):
// bytes, not characters; a leading `]` in a class is a member; POSIX
// classes; `**` only between slashes; a malformed pattern matches nothing.
func TestWildmatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, text string
		want          bool
	}{
		{"?.txt", "a.txt", true},
		{"?.txt", "é.txt", false}, // é is two bytes
		{"??.txt", "é.txt", true},
		{"[]x]y.txt", "]y.txt", true},
		{"[]x]y.txt", "xy.txt", true},
		{"[]x]y.txt", "zy.txt", false},
		{"[!]x]y", "ay", true},
		{"[!]x]y", "]y", false},
		{"[^a]", "b", true},
		{"[^a]", "a", false},
		{"[[:digit:]]*.num", "1a.num", true},
		{"[[:digit:]]*.num", "a1.num", false},
		{"[[:alpha:][:digit:]]", "5", true},
		{"[[:upper:]]", "a", false},
		{"[[:space:]]", "\t", true},
		{"[[:punct:]]", "-", true},
		{"[[:xdigit:]]", "F", true},
		{"[[:foo:]]", "f", false}, // an unknown class: malformed
		{"[[:x]", ":", true},      // no ":]": the '[' is a member
		{"[[:x]", "[", true},
		{"[a-c]", "b", true},
		{"[a-c]", "d", false},
		{"[a-]", "-", true},
		{"[\\]]", "]", true},
		{"[a-\\]]", "]", false},
		{"[", "[", false}, // unclosed: matches nothing
		{"[]", "]", false},
		{"[!]", "a", false},
		{"a[b", "a[b", false},
		{"\\[", "[", true},
		{"a\\", "a", false}, // a dangling backslash
		{"\\*", "*", true},
		{"\\*", "a", false},
		{"a[/]b", "a/b", false}, // a class never matches '/'
		{"a?b", "a/b", false},
		{"*", "a/b", false},
		{"*", "", true},
		{"**", "a/b", true},
		{"a/**", "a", false},
		{"a/**", "a/b", true},
		{"a/**", "a/b/c", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/xb", false},
		{"**/b", "b", true},
		{"**/b", "x/y/b", true},
		{"**/b", "xb", false},
		{"a**b", "axxb", true},
		{"a**b", "ax/b", false},
		{"x/**b", "x/ab", true}, // not between slashes: a `*`
		{"x/**b", "x/a/b", false},
		{"{a,b}.txt", "{a,b}.txt", true},
		{"{a,b}.txt", "a.txt", false},
		{"*.txt", ".txt", true},
		{"*.TXT", "a.txt", false},
		{"*/b", "a/b", true},
		{"*/b", "a/c/b", false},
		{"a*/**/c*", "ab/x/cd", true},
	} {
		assert.Equal(t, tc.want, Wildmatch(tc.pattern, tc.text), "%q against %q", tc.pattern, tc.text)
	}
}

// A pattern of many stars against a long text that cannot match answers
// at once: every star gives up when its text runs out.
func TestWildmatchGivesUpEarly(t *testing.T) {
	pattern := strings.Repeat("*a", 30) + "b"
	text := strings.Repeat("a", 200)
	assert.False(t, Wildmatch(pattern, text))
	assert.False(t, Wildmatch(strings.Repeat("**/a", 20)+"b", strings.Repeat("a/", 40)))
}
