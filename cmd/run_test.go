package cmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/conformance"
)

// setFlags returns one `--set <id>.<key>=<value>` per override, keys
// sorted.
func setFlags(id string, overrides map[string]any) []string {
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var args []string
	for _, k := range keys {
		args = append(args, "--set", fmt.Sprintf("%s.%s=%v", id, k, overrides[k]))
	}
	return args
}

type runLine struct {
	I       int     `json:"i"`
	IsError bool    `json:"isError"`
	Text    string  `json:"text"`
	Code    *string `json:"code"`
}

// parseRun splits run's output on LF only (texts may hold raw U+2028 or
// U+0085) and decodes each line strictly.
func parseRun(t *testing.T, out string) []runLine {
	t.Helper()
	var lines []runLine
	for _, s := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if s == "" {
			continue
		}
		var l runLine
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&l), "line %q", s)
		lines = append(lines, l)
	}
	return lines
}

// TestRunPassesEveryConformanceCase drives `dshhost run` with every case:
// one session per case, --policy for the case's policy, --set for its
// toolfs overrides; `i` is the 0-based call index and `code` appears exactly
// when the error carries one.
func TestRunPassesEveryConformanceCase(t *testing.T) {
	cases, err := conformance.Cases()
	require.NoError(t, err)
	runCases(t, cases)
}

// TestRunPassesEverySearchCase drives `dshhost run` with every search case
// (search.md §8): the default deployment mounts toolsearch, and a case's
// toolsearch overrides become --set flags.
func TestRunPassesEverySearchCase(t *testing.T) {
	cases, err := conformance.SearchCases()
	require.NoError(t, err)
	runCases(t, cases)
}

// TestRunPassesEverySandboxCase drives `dshhost run` with every case of
// sandbox-cases.json: each gets a deployment file (--config) listing
// fssandbox with its overrides right after fslocal (sandbox.md §5).
func TestRunPassesEverySandboxCase(t *testing.T) {
	cases, err := conformance.SandboxCases()
	require.NoError(t, err)
	runCases(t, cases)
}

// TestRunPassesEveryEditorCase drives `dshhost run` with every case of
// editor-cases.json: a case with a tooleditor key gets a deployment file
// (--config) listing tooleditor with its overrides after toolfs (editor.md
// §16); editor/not-in-default-deployment runs on the default deployment.
func TestRunPassesEveryEditorCase(t *testing.T) {
	cases, err := conformance.EditorCases()
	require.NoError(t, err)
	runCases(t, cases)
}

// TestRunPassesEveryFilesCase drives `dshhost run` with every case of
// files-cases.json (the entry tools and read's images, docs/files.md): the
// default deployment mounts toolfiles, and a case's toolfiles overrides
// become --set flags.
func TestRunPassesEveryFilesCase(t *testing.T) {
	cases, err := conformance.FilesCases()
	require.NoError(t, err)
	runCases(t, cases)
}

func runCases(t *testing.T, cases []conformance.Case) {
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			w := workspace(t)
			require.NoError(t, c.Build(w))
			var script strings.Builder
			for _, call := range c.Calls {
				line, err := json.Marshal(map[string]any{"tool": call.Tool, "args": call.ArgsFor(w)})
				require.NoError(t, err)
				script.Write(line)
				script.WriteByte('\n')
			}
			args := []string{"run", "--workspace", w, "--policy", map[bool]string{true: "on", false: "off"}[c.Policy]}
			if c.ProtectedConfig != "" {
				file := filepath.Join(w, c.ProtectedConfig)
				require.NoError(t, os.WriteFile(file, []byte(c.DeploymentFile(w)), 0o644))
				args = append(args, "--config", file)
			} else if dep, ok := c.Deployment(w); ok {
				file := filepath.Join(t.TempDir(), "deployment.yaml")
				require.NoError(t, os.WriteFile(file, []byte(dep), 0o644))
				args = append(args, "--config", file)
			}
			args = append(args, setFlags("toolfs", c.ToolFS)...)
			args = append(args, setFlags("toolsearch", c.ToolSearch)...)
			args = append(args, setFlags("toolfiles", c.ToolFiles)...)
			args = append(args, setFlags("fslocal", c.FSLocal)...)
			args = append(args, "-")
			res := dshhost(t, w, script.String(), nil, args...)
			require.Equal(t, 0, res.code, "stderr: %s", res.stderr)
			lines := parseRun(t, res.stdout)
			require.Len(t, lines, len(c.Expect))
			for i, want := range c.Expect {
				got := lines[i]
				assert.Equal(t, i, got.I)
				assert.NoError(t, want.CheckText(w, got.Text), "call %d text", i)
				assert.Equal(t, want.IsError, got.IsError, "call %d isError", i)
				if want.Code == "" {
					assert.Nil(t, got.Code, "call %d has no code", i)
				} else if assert.NotNil(t, got.Code, "call %d code", i) {
					assert.Equal(t, want.Code, *got.Code, "call %d code", i)
				}
			}
			assert.Empty(t, c.CheckFiles(w), "files after")
		})
	}
}

func TestRunScriptForms(t *testing.T) {
	w := workspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("x\n"), 0o644))
	t.Run("a JSON array is one session", func(t *testing.T) {
		res := dshhost(t, w, `[{"tool":"read","args":{"file_path":"a.txt"}},{"tool":"edit","args":{"file_path":"a.txt","old_string":"x","new_string":"y"}}]`, nil, "run", "-")
		require.Equal(t, 0, res.code, res.stderr)
		lines := parseRun(t, res.stdout)
		require.Len(t, lines, 2)
		assert.False(t, lines[1].IsError, lines[1].Text)
	})
	t.Run("a script file is read from disk", func(t *testing.T) {
		script := filepath.Join(t.TempDir(), "s.jsonl")
		require.NoError(t, os.WriteFile(script, []byte(`{"tool":"list"}`+"\n"), 0o644))
		res := dshhost(t, w, "", nil, "run", script)
		require.Equal(t, 0, res.code, res.stderr)
		assert.Len(t, parseRun(t, res.stdout), 1)
	})
	for name, script := range map[string]string{
		"bad JSON":            `{"tool":`,
		"a call without tool": `{"args":{}}`,
		"an empty script":     ``,
	} {
		t.Run(name+" is unusable: exit 2", func(t *testing.T) {
			res := dshhost(t, w, script, nil, "run", "-")
			assert.Equal(t, 2, res.code)
			assert.Empty(t, res.stdout)
			assert.Contains(t, res.stderr, "dshhost run:")
		})
	}
	t.Run("errors name the physical line and the call", func(t *testing.T) {
		res := dshhost(t, w, `{"tool":"list"}`+"\n\n\ngarbage\n", nil, "run", "-")
		assert.Equal(t, 2, res.code)
		assert.Contains(t, res.stderr, "script line 4 (call 1): invalid character 'g'")
	})
	t.Run("a bad --policy is unusable", func(t *testing.T) {
		res := dshhost(t, w, `{"tool":"list"}`, nil, "run", "--policy", "maybe", "-")
		assert.Equal(t, 2, res.code)
		assert.Contains(t, res.stderr, `--policy must be on or off, not "maybe"`)
	})
}
