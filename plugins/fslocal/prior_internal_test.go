package fslocal

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// TestScanPriorAgreesWithTheWholeFileRule: streaming a file for its shape
// gives what the whole-buffer rule gives, including a CRLF pair split
// across two reads, a BOM, ties and lone CRs.
func TestScanPriorAgreesWithTheWholeFileRule(t *testing.T) {
	dir := t.TempDir()
	p, err := New(Config{Cwd: dir})
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })

	split := strings.Repeat("x", chunkSize-1) + "\r\n" + "y\n" // the pair straddles the first read
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte("ab\r\n"[rng.IntN(4)])
		}
		return b.String()
	}
	cases := map[string]string{
		"empty":                        "",
		"a BOM alone":                  "\ufeff",
		"a BOM and CRLF text":          "\ufeffa\r\nb\r\n",
		"a tie is not dominant":        "a\r\nb\n",
		"lone CRs do not count":        "a\rb\rc\n",
		"a pair split across reads":    split,
		"the split pair decides a tie": split + "z\n" + "w\r\n",
		"random, three reads":          random(3*chunkSize + 17),
		"random with a BOM":            "\ufeff" + random(2*chunkSize),
		"a truncated BOM is not a BOM": "\xef\xbbx\r\n",
		"past 1 MiB":                   random(shapeBytes + 3*chunkSize),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, "f")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
			got, err := p.scanPrior(t.Context(), fsapi.Target{Key: path, DisplayPath: path}, "write")
			require.NoError(t, err)
			assert.Equal(t, shapeOf(content), got)
		})
	}
}

func TestScanPriorIsAbortedByItsContext(t *testing.T) {
	dir := t.TempDir()
	p, err := New(Config{Cwd: dir})
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	path := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(path, []byte("a\n"), 0o644))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = p.scanPrior(ctx, fsapi.Target{Key: path, DisplayPath: path}, "write")
	assert.EqualError(t, err, "write aborted")
}

// contract §3.7 step 6 [D26]: the line endings of a file over 1 MiB are
// decided by its first 1 MiB alone, whatever follows, and a CRLF pair cut
// by that boundary does not count.
func TestTheShapeIsTakenFromTheFirstMiB(t *testing.T) {
	crlf := strings.Repeat("a\r\n", shapeBytes/3) // 1 MiB less a byte of CRLF lines
	lf := strings.Repeat("b\n", 2*shapeBytes)
	const n = (shapeBytes - 3 - 1) / 3
	for _, tc := range []struct {
		name     string
		text     string
		dominant bool
	}{
		{"CRLF first, far more LF after", crlf + lf, true},
		{"LF first, far more CRLF after", lf[:shapeBytes] + crlf + crlf, false},
		// A BOM, n bare LFs and n CRLFs fill 1 MiB but its last byte, a CR
		// whose LF lies past it: a tie, not dominant, unless the cut pair
		// counted.
		{"a pair cut by the boundary is not counted", "\ufeff" + strings.Repeat("\n", n) + strings.Repeat("\r\n", n) + "\r\n" + crlf, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.dominant, shapeOf(tc.text).crlfDominant)
		})
	}
}
