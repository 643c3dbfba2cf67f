package fslocal

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// TestNearMissFieldShapes: the differences agents send most (issue 27),
// each found with its kind, line range and the lines as read shows them.
func TestNearMissFieldShapes(t *testing.T) {
	goFile := "package main\n\nfunc f(x bool) int {\n\tif x {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
	tests := []struct {
		name, view, old string
		want            *fsapi.NearMiss
	}{
		{"spaces for tabs", goFile, "if x {\n    return 1\n}",
			&fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 4, Last: 6, Lines: []string{"\tif x {", "\t\treturn 1", "\t}"}}},
		{"tabs for spaces", "def f():\n    if x:\n        return 1\n", "\tif x:\n\t\treturn 1\n",
			&fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 2, Last: 3, Lines: []string{"    if x:", "        return 1"}}},
		{"trailing spaces in the file", "a = 1   \nb = 2\t\nc = 3\n", "a = 1\nb = 2\n",
			&fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 1, Last: 2, Lines: []string{"a = 1   ", "b = 2\t"}}},
		{"trailing spaces in old_string", "a = 1\nb = 2\n", "a = 1  \nb = 2",
			&fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 1, Last: 2, Lines: []string{"a = 1", "b = 2"}}},
		{"a run of spaces inside a line", "x := foo(a,   b)\n", "foo(a, b)",
			&fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 1, Last: 1, Lines: []string{"x := foo(a,   b)"}}},
		{"lone CRs (old Mac) and an LF old_string", "one\rtwo\rthree\r", "two\nthree",
			&fsapi.NearMiss{Kind: fsapi.NearLineEndings, First: 1, Last: 1, Lines: []string{"one\rtwo\rthree"}}},
		{"an old_string with lone CRs in an LF file", "a\nb\nc\n", "b\rc",
			&fsapi.NearMiss{Kind: fsapi.NearLineEndings, First: 2, Last: 3, Lines: []string{"b", "c"}}},
		{"read's prefixes pasted in", goFile, "4: \tif x {\n5: \t\treturn 1\n",
			&fsapi.NearMiss{Kind: fsapi.NearLineNumbers, First: 4, Last: 5, Lines: []string{"\tif x {", "\t\treturn 1"}}},
		{"read's prefix on an empty line, its space trimmed", goFile, "1: package main\n2:\n3: func f(x bool) int {",
			&fsapi.NearMiss{Kind: fsapi.NearLineNumbers, First: 1, Last: 3, Lines: []string{"package main", "", "func f(x bool) int {"}}},
		{"the editor view's prefixes pasted in", goFile, "     4  \tif x {\n     5  \t\treturn 1",
			&fsapi.NearMiss{Kind: fsapi.NearLineNumbers, First: 4, Last: 5, Lines: []string{"\tif x {", "\t\treturn 1"}}},
		{"a near match in two places", "if a {\n\tx()\n}\nif a {\n\tx()\n}\n", "if a {\n  x()\n}",
			&fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 1, Last: 3, Lines: []string{"if a {", "\tx()", "}"}, More: 1}},
		{"a near match in many places", strings.Repeat("go  on\n", 7), "go on",
			&fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 1, Last: 1, Lines: []string{"go  on"}, More: 6}},
		{"a CR before the LF is dropped as read drops it", "x  y\r\nz", "x y",
			&fsapi.NearMiss{Kind: fsapi.NearWhitespace, First: 1, Last: 1, Lines: []string{"x  y"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NotContains(t, tc.view, tc.old, "old_string does not occur exactly")
			assert.Equal(t, tc.want, nearMiss(tc.view, tc.old))
		})
	}
}

// TestNoNearMiss: texts that differ in more than one kind, or in anything
// else, or that are only blanks, have no near match.
func TestNoNearMiss(t *testing.T) {
	for name, c := range map[string]struct{ view, old string }{
		"another word":              {"if x {\n\treturn 1\n}", "if y {\n\treturn 1\n}"},
		"blanks only":               {"a  \n\n\t\n", " \t\n\r\n"},
		"a space inside a token":    {"foo(a,b)", "foo(a, b)"},
		"a line joined":             {"a\nb\n", "a b"},
		"prefixes and blanks both":  {"\tif x {\n", "1: if  x {"},
		"prefixes on some lines":    {"a\nb\n", "1: a\nb x"},
		"an empty line not in view": {"a\nb", "a\n\nb"},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Nil(t, nearMiss(c.view, c.old))
		})
	}
}

// TestNearMissIsLinearOnPathologicalInput: a file of blanks, of one
// repeated near match, and a huge old_string all finish; the shown lines
// stay bounded whatever the region's size.
func TestNearMissIsLinearOnPathologicalInput(t *testing.T) {
	blanks := strings.Repeat(" \t", 1<<20) + "\n"
	assert.Nil(t, nearMiss(blanks, "x  y"))

	many := strings.Repeat("a  b\n", 200_000)
	nm := nearMiss(many, "a b\n")
	require.NotNil(t, nm)
	assert.Equal(t, 199_999, nm.More)

	huge := strings.Repeat("word  ", 500_000)
	nm = nearMiss(huge, strings.Repeat("word ", 400_000))
	require.NotNil(t, nm)
	assert.Equal(t, []string{huge[:fsapi.NearMissMaxBytes]}, nm.Lines, "one line, cut to the shown bound")

	long := strings.Repeat("x\t\n", 100)
	nm = nearMiss(long, strings.Repeat("x \n", 100))
	require.NotNil(t, nm)
	assert.Equal(t, 1, nm.First)
	assert.Equal(t, 100, nm.Last)
	assert.Len(t, nm.Lines, fsapi.NearMissMaxLines)
}

func TestSqueezeBlanks(t *testing.T) {
	for in, want := range map[string]string{
		"":                "",
		"a":               "a",
		"a b\nc\n":        "a b\nc\n",
		"  a  \t b \n\tc": "a b\nc",
		"\n \n":           "\n\n",
		"x\t\ty\r\n":      "x y\r\n",
	} {
		assert.Equal(t, want, squeezeBlanks(in), "%q", in)
	}
}
