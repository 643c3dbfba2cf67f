package toolsearch_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
)

type match struct {
	Path       string `json:"path"`
	LineNumber int    `json:"lineNumber"`
	Line       string `json:"line"`
}

type grepOut struct {
	Matches       []match `json:"matches"`
	TotalMatches  int     `json:"totalMatches"`
	FilesSearched int     `json:"filesSearched"`
	Stop          string  `json:"stop"`
}

// sequential is the plain sequential reading of search.md §6.5 on a tree
// without hidden names or ignore files: files in path order, binary ones
// skipped, lines matched one by one, stopping at the match after maxKept.
func sequential(t *testing.T, w string, re *regexp.Regexp, maxKept int) grepOut {
	out := grepOut{Stop: "none", Matches: []match{}}
	err := filepath.WalkDir(w, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
			return nil
		}
		rel, _ := filepath.Rel(w, p)
		lines := strings.Split(string(data), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		for i, l := range lines {
			if re.MatchString(l) {
				if len(out.Matches) == maxKept {
					out.Stop = "limit"
					out.FilesSearched++
					return filepath.SkipAll
				}
				out.Matches = append(out.Matches, match{rel, i + 1, l})
			}
		}
		out.FilesSearched++
		return nil
	})
	require.NoError(t, err)
	out.TotalMatches = len(out.Matches)
	return out
}

// TestParallelSearchEqualsTheSequentialOne searches random trees with many
// workers and compares every result, at several hard caps, with the
// sequential search in path order (search.md §6.5 Note (Go)).
func TestParallelSearchEqualsTheSequentialOne(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	words := []string{"alpha", "beta", "gamma", "needle", "needles", "x", ""}
	for seed := range 4 {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		caps := []int{1, 7, 50, 100000}
		for _, maxKept := range caps {
			s := stacktest.New(t, stacktest.Options{ToolSearch: map[string]any{"maxKept": maxKept, "grepMaxMatches": 1000000}})
			for i := range 300 {
				dir := fmt.Sprintf("d%d/e%d", rng.IntN(6), rng.IntN(4))
				var b strings.Builder
				for range rng.IntN(30) {
					b.WriteString(words[rng.IntN(len(words))])
					b.WriteByte('\n')
				}
				if rng.IntN(25) == 0 {
					b.WriteByte(0) // binary
				}
				p := filepath.Join(s.W, dir, fmt.Sprintf("f%03d.txt", i))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
			}
			for _, pattern := range []string{"needle", "^(alpha|beta)$", "^$"} {
				res := s.Call(t.Context(), s.Conversation("s"), "grep", `{"pattern":"`+pattern+`"}`)
				require.False(t, res.IsError, res.Text())
				raw, _ := json.Marshal(res.Value)
				var got grepOut
				require.NoError(t, json.Unmarshal(raw, &got))
				want := sequential(t, s.W, regexp.MustCompile(pattern), maxKept)
				if !assert.Equal(t, want, got, "seed %d, maxKept %d, pattern %q", seed, maxKept, pattern) {
					return
				}
			}
		}
	}
}
