package glob

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
		{"[]]", ReasonEmptyClass},
		{`a\`, ReasonDanglingEscape},
		{"[ab", ReasonUnclosedClass},
		{`[a\`, ReasonUnclosedClass},
		{`[a\]`, ReasonUnclosedClass},
		{"[", ReasonUnclosedClass},
		{"[!", ReasonUnclosedClass},
		{"[]", ReasonEmptyClass},
		{"[!]", ReasonEmptyClass},
		{"[^]", ReasonEmptyClass},
		{"[]x", ReasonEmptyClass},
		{"a}", ReasonUnopenedAlt},
		{"{a,b", ReasonUnclosedAlt},
		{"{a}}", ReasonUnopenedAlt},
		{"}{", ReasonUnopenedAlt},
		{`{a\`, ReasonDanglingEscape},
		{"[ab{", ReasonUnclosedClass},
		{"{[", ReasonUnclosedClass},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Validate(tc.pattern), "pattern %q", tc.pattern)
		assert.Equal(t, tc.want == "", doublestar.ValidatePattern(tc.pattern), "doublestar agrees on %q", tc.pattern)
	}
}

// FuzzValidate checks that Validate rejects exactly what doublestar rejects,
// never panics, and that a valid pattern compiles and matches without
// panicking.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{"*.go", "[ab", "{a,b", "a}", `a\`, "[]", "**/x/*.{go,ts}", "[!a-z]?", "\xff[\xfe]"} {
		f.Add(s, "a/b.go")
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		reason := Validate(pattern)
		if (reason == "") != doublestar.ValidatePattern(pattern) {
			t.Fatalf("Validate(%q) = %q, doublestar.ValidatePattern = %v", pattern, reason, doublestar.ValidatePattern(pattern))
		}
		p, r := Compile(pattern)
		if r != reason {
			t.Fatalf("Compile reason %q, Validate %q", r, reason)
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
		HasListComma(pattern)
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
		p, reason := Compile(tc.pattern)
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
	var zero Pattern
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
		assert.Equal(t, tc.want, HasListComma(tc.include), tc.include)
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
		strings.Repeat("{a,a}", 24): MaxExpansions + 1,
	} {
		assert.Equal(t, want, Expansions(pattern), pattern)
	}
}

// TestTooManyExpansionsAreRefused: doublestar tries every expansion, so a
// pattern of {a,a} twenty-four times took 16 s per name; one beyond
// MaxExpansions is refused before any matching.
func TestTooManyExpansionsAreRefused(t *testing.T) {
	_, reason := Compile(strings.Repeat("{a,b}", 10))
	assert.Empty(t, reason, "1024 expansions are allowed")
	for _, p := range []string{strings.Repeat("{a,a}", 24) + "b", strings.Repeat("{a,b}", 11), "{" + strings.Repeat("x,", 1024) + "y}"} {
		_, reason = Compile(p)
		assert.Equal(t, ReasonTooManyAlternatives, reason)
	}
	assert.Equal(t, ReasonUnclosedAlt, func() string { _, r := Compile(strings.Repeat("{a,b}", 11) + "{"); return r }(), "Validate's reasons come first")
}
