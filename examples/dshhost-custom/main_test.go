package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// binary is dshhost-custom, built once for this test run as the guide says
// (go build ./examples/dshhost-custom).
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dshhost-custom-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "dshhost-custom")
	// Every checkpoint store of the run lives in the run's directory.
	if os.Getenv("DSH_STATE_DIR") == "" {
		os.Setenv("DSH_STATE_DIR", filepath.Join(dir, "state"))
	}
	build := exec.Command("go", "build", "-o", binary, "github.com/dsh-go/dsh/examples/dshhost-custom")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building dshhost-custom:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// tempDir returns a fresh, symlink-free temporary directory.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

// deployment writes a deployment file with both example plugins: the audit
// log at auditPath and `secrets/**` protected.
func deployment(t *testing.T, auditPath string) string {
	t.Helper()
	p := filepath.Join(tempDir(t), "dsh.yaml")
	writeFile(t, p, `plugins:
  - name: fslocal
  - name: protectedpaths
    config:
      paths: ["secrets/**"]
  - name: fspolicy
  - name: toolfs
  - name: auditlog
    config:
      path: `+auditPath+`
  - name: mcp
`)
	return p
}

// call runs one tools/call and returns its text, its error code ("" when
// none) and whether it is an error.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	text := res.Content[0].(*mcp.TextContent).Text
	code := ""
	if info, ok := res.Meta["error"].(map[string]any); ok {
		code, _ = info["code"].(string)
	}
	return text, code, res.IsError
}

// auditRecord is one line of the audit log as a client reads it.
type auditRecord struct {
	Time         time.Time `json:"time"`
	Conversation string    `json:"conversation"`
	Principal    string    `json:"principal"`
	Tool         string    `json:"tool"`
	Path         string    `json:"path"`
	Kind         string    `json:"kind"`
	Version      string    `json:"version"`
}

// TestServeWithTheExamplePlugins serves the custom binary over MCP and
// drives it with the go-sdk client: reads and edits are audited as JSON
// lines, an edit of a protected path is refused with the documented message,
// and other edits follow the read-before-edit rules.
func TestServeWithTheExamplePlugins(t *testing.T) {
	w := tempDir(t)
	writeFile(t, filepath.Join(w, "notes.txt"), "status: draft\n")
	writeFile(t, filepath.Join(w, "secrets", "token.txt"), "hunter2\n")
	require.NoError(t, os.Symlink("secrets/token.txt", filepath.Join(w, "token-link.txt")))
	auditPath := filepath.Join(tempDir(t), "audit.jsonl")

	cmd := exec.Command(binary, "serve", "--config", deployment(t, auditPath), "--workspace", w)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	// A long TerminateDuration: Close returns nil in time only if the server
	// exits by itself on EOF (exit status 0), having disposed its plugins.
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Minute}, nil)
	require.NoError(t, err)

	protected := func(p string) string {
		return `Error: cannot edit "` + p + `": the path is protected by rule "secrets/**"`
	}
	steps := []struct {
		name      string
		tool      string
		args      map[string]any
		wantText  string
		wantCode  string
		wantError bool
	}{
		{"an unread file cannot be edited", "edit", map[string]any{"file_path": "notes.txt", "old_string": "draft", "new_string": "final"},
			`Error: edit requires reading "` + w + `/notes.txt" first — read the file, then retry`, "FS_NOT_OBSERVED", true},
		{"a read is allowed", "read", map[string]any{"file_path": "notes.txt"},
			"<path>" + w + "/notes.txt</path>\n<type>file</type>\n<content>\n1: status: draft\n\n(End of file - total 1 lines)\n</content>", "", false},
		{"an edit after the read passes", "edit", map[string]any{"file_path": "notes.txt", "old_string": "draft", "new_string": "final"},
			"The file " + w + "/notes.txt has been updated successfully.", "", false},
		{"a protected file can be read", "read", map[string]any{"file_path": "secrets/token.txt"},
			"<path>" + w + "/secrets/token.txt</path>\n<type>file</type>\n<content>\n1: hunter2\n\n(End of file - total 1 lines)\n</content>", "", false},
		{"an edit of a protected file is refused even after a read", "edit", map[string]any{"file_path": "secrets/token.txt", "old_string": "hunter2", "new_string": "swordfish"},
			protected(w + "/secrets/token.txt"), "PATH_PROTECTED", true},
		{"an edit through a symlink is refused too", "edit", map[string]any{"file_path": "token-link.txt", "old_string": "hunter2", "new_string": "swordfish"},
			protected(w + "/token-link.txt"), "PATH_PROTECTED", true},
		{"a new protected file cannot be written", "write", map[string]any{"file_path": "secrets/new.txt", "content": "x"},
			`Error: cannot write "` + w + `/secrets/new.txt": the path is protected by rule "secrets/**"`, "PATH_PROTECTED", true},
	}
	for _, st := range steps {
		text, code, isError := call(t, cs, st.tool, st.args)
		assert.Equal(t, st.wantText, text, st.name)
		assert.Equal(t, st.wantCode, code, st.name)
		assert.Equal(t, st.wantError, isError, st.name)
	}

	start := time.Now()
	require.NoError(t, cs.Close(), "a clean shutdown on EOF")
	assert.Less(t, time.Since(start), 30*time.Second, "the server exits on EOF without being signalled")

	data, err := os.ReadFile(filepath.Join(w, "secrets", "token.txt"))
	require.NoError(t, err)
	assert.Equal(t, "hunter2\n", string(data), "the protected file is untouched")

	// The audit log is flushed when the server disposes its plugins.
	f, err := os.Open(auditPath)
	require.NoError(t, err)
	defer f.Close()
	var records []auditRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r auditRecord
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&r), "line %q", sc.Text())
		records = append(records, r)
	}
	require.NoError(t, sc.Err())
	require.Len(t, records, 3, "two reads and one edit succeeded; refusals observe nothing")
	// The go-sdk client speaks 2026-07-28 and names no conversation: its
	// calls run in the conversation of its principal (conversations.md §1
	// rule 3).
	want := []struct{ tool, path string }{{"read", w + "/notes.txt"}, {"edit", w + "/notes.txt"}, {"read", w + "/secrets/token.txt"}}
	for i, r := range records {
		assert.Equal(t, want[i].tool, r.Tool)
		assert.Equal(t, want[i].path, r.Path)
		assert.Equal(t, "stdio", r.Conversation)
		assert.Equal(t, "stdio", r.Principal)
		assert.Equal(t, "present", r.Kind)
		assert.NotEmpty(t, r.Version)
		assert.False(t, r.Time.IsZero())
	}
	assert.NotEqual(t, records[0].Version, records[1].Version, "the edit made a new version")
}

// TestABadPatternStopsTheBoot: the custom binary validates the example
// plugins' config like any other, before anything starts.
func TestABadPatternStopsTheBoot(t *testing.T) {
	cmd := exec.Command(binary, "plugins", "--config", deployment(t, filepath.Join(tempDir(t), "a.jsonl")),
		"--workspace", tempDir(t), "--set", `protectedpaths.paths=["secrets/["]`)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Equal(t, "dshhost-custom: invalid deployment config:\n  flag --set protectedpaths.paths=[\"secrets/[\"]: plugins[1].config.paths[0]: protectedpaths: bad pattern \"secrets/[\": syntax error in pattern\n", string(out))
}

// TestTheExampleDeploymentIsTheDefaultStackPlusTheExamples: dsh.yaml says
// it is the default stack plus the two example plugins; `config` of the
// default deployment and of dsh.yaml hold the same entries, in order, once
// the examples are left out.
func TestTheExampleDeploymentIsTheDefaultStackPlusTheExamples(t *testing.T) {
	names := func(args ...string) []string {
		cmd := exec.Command(binary, append([]string{"config"}, args...)...)
		cmd.Dir = t.TempDir()
		out, err := cmd.Output()
		require.NoError(t, err)
		var d struct {
			Plugins []struct{ Name string } `json:"plugins"`
		}
		require.NoError(t, json.Unmarshal(out, &d))
		var got []string
		for _, p := range d.Plugins {
			if p.Name != "protectedpaths" && p.Name != "auditlog" {
				got = append(got, p.Name)
			}
		}
		return got
	}
	example, err := filepath.Abs("dsh.yaml")
	require.NoError(t, err)
	assert.Equal(t, names(), names("--config", example))
}
