package toolsearch

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/assert"
)

func TestValidateNamesTheFirstProblem(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{"*.go", ""},
		{"{a,{b,c}}", ""},
		{"{}", ""},
		{`\*`, ""},
		{"[a-z]", ""},
		{"[]]", reasonEmptyClass},
		{`a\`, reasonDanglingEscape},
		{"[ab", reasonUnclosedClass},
		{`[a\`, reasonUnclosedClass},
		{`[a\]`, reasonUnclosedClass},
		{"[", reasonUnclosedClass},
		{"[!", reasonUnclosedClass},
		{"[]", reasonEmptyClass},
		{"[!]", reasonEmptyClass},
		{"[^]", reasonEmptyClass},
		{"[]x", reasonEmptyClass},
		{"a}", reasonUnopenedAlt},
		{"{a,b", reasonUnclosedAlt},
		{"{a}}", reasonUnopenedAlt},
		{"}{", reasonUnopenedAlt},
		{`{a\`, reasonDanglingEscape},
		{"[ab{", reasonUnclosedClass},
		{"{[", reasonUnclosedClass},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, validateGlob(tc.pattern), "pattern %q", tc.pattern)
		assert.Equal(t, tc.want == "", doublestar.ValidatePattern(tc.pattern), "doublestar agrees on %q", tc.pattern)
	}
}

// FuzzValidate checks that validateGlob rejects exactly what doublestar rejects,
// never panics, and that a valid pattern compiles and matches without
// panicking.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{"*.go", "[ab", "{a,b", "a}", `a\`, "[]", "**/x/*.{go,ts}", "[!a-z]?", "\xff[\xfe]"} {
		f.Add(s, "a/b.go")
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		reason := validateGlob(pattern)
		if (reason == "") != doublestar.ValidatePattern(pattern) {
			t.Fatalf("validateGlob(%q) = %q, doublestar.ValidatePattern = %v", pattern, reason, doublestar.ValidatePattern(pattern))
		}
		p, r := compileGlob(pattern)
		if r != reason {
			t.Fatalf("compileGlob reason %q, validateGlob %q", r, reason)
		}
		if r == "" {
			name := path
			for i := len(path) - 1; i >= 0; i-- {
				if path[i] == '/' {
					name = path[i+1:]
					break
				}
			}
			p.Match(path, name)
		}
		hasListComma(pattern)
	})
}

func TestAnchoring(t *testing.T) {
	tests := []struct {
		pattern, rel string
		want         bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "cmd/x/c.go", true},
		{"/*.go", "a.go", true},
		{"/*.go", "cmd/b.go", false},
		{"./*.go", "a.go", true},
		{"./*.go", "cmd/b.go", false},
		{".//./*.go", "a.go", true},
		{"cmd/*.go", "cmd/b.go", true},
		{"cmd/*.go", "cmd/x/c.go", false},
		{"cmd/*.go", "x/cmd/b.go", false},
		{"**/test/*.go", "a/test/x.go", true},
		{"**/test/*.go", "test/x.go", true},
		{"**", "a/b/c", true},
		{"a/**", "a", true},
		{"{a/b,c}", "c", true},
		{"{a/b,c}", "x/c", false},
		{"{a/b,c}", "a/b", true},
		{`a\/b`, "a/b", true},
		{"cmd/", "cmd", false},
		{"/", "a", false},
		{"./", "a", false},
		{"?.txt", "é.txt", true},
		{"?.txt", "\xff.txt", true},
		{"[z-a]", "m", false},
		{"*.GO", "a.go", false},
		{"{}a", "a", true},
		{"a,b", "a,b", true},
	}
	for _, tc := range tests {
		p, reason := compileGlob(tc.pattern)
		assert.Empty(t, reason, tc.pattern)
		name := tc.rel
		for i := len(tc.rel) - 1; i >= 0; i-- {
			if tc.rel[i] == '/' {
				name = tc.rel[i+1:]
				break
			}
		}
		assert.Equal(t, tc.want, p.Match(tc.rel, name), "%q against %q", tc.pattern, tc.rel)
	}
	var zero globPattern
	assert.False(t, zero.Match("a", "a"), "the zero pattern matches nothing")
}

func TestHasListComma(t *testing.T) {
	tests := []struct {
		include string
		want    bool
	}{
		{"*.go,*.ts", true},
		{"*.{go,ts}", false},
		{`a\,b`, true},
		{"[,]x", false},
		{"[a,b", false},
		{"}a,b", true},
		{"{a,{b,c}},d", true},
		{"[]],x", true},
		{"[!,]", false},
		{"plain", false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, hasListComma(tc.include), tc.include)
	}
}

func TestExpansionsAreCountedAsDoublestarSplitsBraces(t *testing.T) {
	for pattern, want := range map[string]int{
		"*.go":                      1,
		"{}":                        1,
		"{a,}":                      2,
		"{a,b}{c,d}":                4,
		"{a,{b,c}}":                 3,
		"{a,{b,c}{d,e}}/x{1,2}":     10,
		`\{a,b}`:                    1, // an escaped brace opens nothing
		`{a\,b,c}`:                  2,
		"{[,}],b}":                  2, // a class hides its comma and brace
		"[{]{a,b}":                  2,
		strings.Repeat("{a,b}", 10): 1024,
		strings.Repeat("{a,a}", 24): maxGlobExpansions + 1,
	} {
		assert.Equal(t, want, globExpansions(pattern), pattern)
	}
}

// TestTooManyExpansionsAreRefused: doublestar tries every expansion, so a
// pattern of {a,a} twenty-four times took 16 s per name; one beyond
// maxGlobExpansions is refused before any matching.
func TestTooManyExpansionsAreRefused(t *testing.T) {
	_, reason := compileGlob(strings.Repeat("{a,b}", 10))
	assert.Empty(t, reason, "1024 expansions are allowed")
	for _, p := range []string{strings.Repeat("{a,a}", 24) + "b", strings.Repeat("{a,b}", 11), "{" + strings.Repeat("x,", 1024) + "y}"} {
		_, reason = compileGlob(p)
		assert.Equal(t, reasonTooManyAlternatives, reason)
	}
	assert.Equal(t, reasonUnclosedAlt, func() string { _, r := compileGlob(strings.Repeat("{a,b}", 11) + "{"); return r }(), "validateGlob's reasons come first")
}
