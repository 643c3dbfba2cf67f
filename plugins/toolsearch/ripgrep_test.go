package toolsearch_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// TestGrepAgreesWithRipgrepOnTheGoTree searches $(go env GOROOT)/src (read
// only) with grep and with ripgrep and compares the matched file:line
// sets. On that tree the two agree: it has no hidden files to search, and
// ripgrep is told to read .gitignore files outside a git checkout and to
// take CRLF as a line end (so `$` matches before it), as we do (search.md
// §6.4.1, §6.5).
// It is skipped without rg and in -short runs.
func TestGrepAgreesWithRipgrepOnTheGoTree(t *testing.T) {
	if testing.Short() {
		t.Skip("searches the Go source tree")
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed: apt-get install -y ripgrep")
	}
	tree, err := filepath.EvalSymlinks(filepath.Join(runtime.GOROOT(), "src"))
	require.NoError(t, err)
	s := stacktest.New(t, stacktest.Options{W: tree, ToolSearch: map[string]any{"maxKept": 1000000, "grepMaxMatches": 1000000, "grepMaxBytes": 1 << 30}})
	for _, pattern := range []string{"func NewReplacer", `errors\.New\("[a-z]+ overflow`, "TODO|FIXME", "(?i)newreplacer", `^\s*//go:build ignore$`} {
		t.Run(pattern, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"pattern": pattern})
			res := s.Call(t.Context(), s.Conversation("s"), "grep", string(args))
			require.False(t, res.IsError, res.Text())
			raw, _ := json.Marshal(res.Value)
			var v struct {
				Matches []struct {
					Path       string `json:"path"`
					LineNumber int    `json:"lineNumber"`
				} `json:"matches"`
				Stop string `json:"stop"`
			}
			require.NoError(t, json.Unmarshal(raw, &v))
			require.Equal(t, "none", v.Stop)
			var ours []string
			for _, m := range v.Matches {
				ours = append(ours, m.Path+":"+strconv.Itoa(m.LineNumber))
			}
			out, err := exec.Command(rg, "-n", "--no-config", "--no-heading", "--no-require-git", "--crlf", "-e", pattern, tree).Output()
			if err != nil && len(out) > 0 {
				require.NoError(t, err)
			}
			var theirs []string
			for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
				if line == "" {
					continue
				}
				line = strings.TrimPrefix(line, tree+"/")
				parts := strings.SplitN(line, ":", 3)
				theirs = append(theirs, parts[0]+":"+parts[1])
			}
			slices.Sort(ours)
			slices.Sort(theirs)
			assert.NotEmpty(t, theirs)
			assert.Equal(t, theirs, ours)
		})
	}
}
