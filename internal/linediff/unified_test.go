package linediff_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/linediff"
)

// numbered returns n lines `line1` … `line<n>`, each with its LF.
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line" + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

func TestUnified(t *testing.T) {
	assert.Empty(t, linediff.Unified("a.txt", "same\n", "same\n"))

	before := numbered(20)
	after := strings.Replace(strings.Replace(before, "line3\n", "THREE\n", 1), "line16\n", "line16\nextra\n", 1)
	assert.Equal(t, `--- a/a.txt
+++ b/a.txt
@@ -1,6 +1,6 @@
 line1
 line2
-line3
+THREE
 line4
 line5
 line6
@@ -14,6 +14,7 @@
 line14
 line15
 line16
+extra
 line17
 line18
 line19
`, linediff.Unified("a.txt", before, after), "two hunks, numbered in the whole file")

	assert.Equal(t, "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n",
		linediff.Unified("x", "a", "b"))
	assert.Equal(t, "--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+new\n", linediff.Unified("x", "", "new\n"))
}

// TestUnifiedLooksOnlyAtTheChange: a one-line change deep in a big text
// is numbered as in the whole text (only the changed region is diffed).
func TestUnifiedLooksOnlyAtTheChange(t *testing.T) {
	before := numbered(200_000)
	after := strings.Replace(before, "line150000\n", "CHANGED\n", 1)
	got := linediff.Unified("big", before, after)
	assert.Equal(t, "--- a/big\n+++ b/big\n@@ -149997,7 +149997,7 @@\n line149997\n line149998\n line149999\n-line150000\n+CHANGED\n line150001\n line150002\n line150003\n", got)
}

// TestUnifiedApplies: patching before with the diff gives after, for
// random changes of a numbered text.
func TestUnifiedApplies(t *testing.T) {
	rnd := rand.New(rand.NewPCG(27, 1))
	for range 200 {
		lines := strings.SplitAfter(numbered(60), "\n")
		lines = lines[:len(lines)-1]
		for range 1 + rnd.IntN(6) {
			i := rnd.IntN(len(lines))
			switch rnd.IntN(3) {
			case 0:
				lines[i] = "changed " + lines[i]
			case 1:
				lines = append(lines[:i], lines[i+1:]...)
			default:
				lines = append(lines[:i], append([]string{"new\n"}, lines[i:]...)...)
			}
		}
		before, after := numbered(60), strings.Join(lines, "")
		diff := linediff.Unified("f", before, after)
		require.Equal(t, after, patch(t, before, diff), diff)
	}
}

// patch applies a unified diff of LF-terminated texts as patch(1) would,
// checking every context and removed line against before.
func patch(t *testing.T, before, diff string) string {
	t.Helper()
	old := strings.SplitAfter(before, "\n")
	old = old[:len(old)-1]
	lines := strings.SplitAfter(diff, "\n")
	require.True(t, strings.HasPrefix(lines[0], "--- a/") && strings.HasPrefix(lines[1], "+++ b/"))
	var out []string
	next := 0 // the next old line not yet copied
	for _, l := range lines[2:] {
		switch {
		case l == "":
		case strings.HasPrefix(l, "@@ -"):
			from, _, _ := strings.Cut(strings.TrimPrefix(l, "@@ -"), " ")
			start, count, _ := strings.Cut(from, ",")
			n, err := strconv.Atoi(start)
			require.NoError(t, err)
			if count != "0" {
				n-- // 1-based, unless the side is empty
			}
			out = append(out, old[next:n]...)
			next = n
		case l[0] == ' ' || l[0] == '-':
			require.Equal(t, old[next], l[1:], "line %d", next+1)
			if l[0] == ' ' {
				out = append(out, l[1:])
			}
			next++
		case l[0] == '+':
			out = append(out, l[1:])
		default:
			t.Fatalf("unexpected line %q", l)
		}
	}
	return strings.Join(append(out, old[next:]...), "")
}
