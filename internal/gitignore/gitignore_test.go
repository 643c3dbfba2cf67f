package gitignore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseLines(t *testing.T) {
	r := Parse([]byte("\xEF\xBB\xBF# comment\n\n*.log\r\n!keep.log\nbuild/\n\\#hash\n\\!bang\ntrail  \nesc\\ \n/root-only\n{a,b}.txt\n[\n\\\n"))
	var exprs []string
	for _, ru := range r.rules {
		exprs = append(exprs, fmt.Sprintf("%s neg=%v dir=%v anch=%v", ru.pattern, ru.negate, ru.dirOnly, ru.anchored))
	}
	assert.Equal(t, []string{
		"*.log neg=false dir=false anch=false",
		"keep.log neg=true dir=false anch=false",
		"build neg=false dir=true anch=false",
		`\#hash neg=false dir=false anch=false`,
		`\!bang neg=false dir=false anch=false`,
		"trail neg=false dir=false anch=false",
		`esc\  neg=false dir=false anch=false`,
		"root-only neg=false dir=false anch=true",
		`{a,b}.txt neg=false dir=false anch=false`,
		"[ neg=false dir=false anch=false",
		`\ neg=false dir=false anch=false`,
	}, exprs, "BOM, comments, blanks, CR, escapes, trailing spaces; malformed rules are kept and match nothing")
	assert.Equal(t, 11, r.Len())
}

func TestMatchRules(t *testing.T) {
	tests := []struct {
		rules string
		rel   string
		dir   bool
		want  bool // ignored
		hit   bool // any ignoreRule matched
	}{
		{"*.log", "a.log", false, true, true},
		{"*.log", "x/y/a.log", false, true, true},
		{"*.log\n!keep.log", "keep.log", false, false, true},
		{"build/", "build", false, false, false},
		{"build/", "build", true, true, true},
		{"build/", "x/build", true, true, true},
		{"/build", "x/build", true, false, false},
		{"doc/*.html", "doc/a.html", false, true, true},
		{"doc/*.html", "doc/x/a.html", false, false, false},
		{"doc/*.html", "x/doc/a.html", false, false, false},
		{"**/foo", "a/b/foo", false, true, true},
		{"**/foo", "foo", false, true, true},
		{"a/**", "a", true, false, false},
		{"a/**", "a/b", false, true, true},
		{"a/**", "a/b/c", false, true, true},
		{"a/**/b", "a/b", false, true, true},
		{"a/**/b", "a/x/y/b", false, true, true},
		{"a**b", "axxb", false, true, true},
		{"{a,b}.txt", "a.txt", false, false, false},
		{"{a,b}.txt", "{a,b}.txt", false, true, true},
		{"*.TXT", "a.txt", false, false, false},
		{"[!a]x", "bx", false, true, true},
		{"[^a]x", "ax", false, false, false},
		{"\\#x", "#x", false, true, true},
		{"?", "é", false, false, false}, // [S11]: one byte
		{"?.txt", "é.txt", false, false, false},
		{"[]x]y.txt", "]y.txt", false, true, true},
		{"[[:digit:]]*.num", "7.num", false, true, true},
		{"[", "[", false, false, false}, // an unclosed class matches nothing
		{"[\n*.log", "a.log", false, true, true},
		{"*", "a/b", false, true, true},
	}
	for _, tc := range tests {
		matched, ignore := Parse([]byte(tc.rules)).Match(tc.rel, tc.dir)
		assert.Equal(t, tc.hit, matched, "%q on %q", tc.rules, tc.rel)
		assert.Equal(t, tc.want, ignore, "%q on %q", tc.rules, tc.rel)
	}
}
