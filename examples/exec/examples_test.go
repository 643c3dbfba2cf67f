// The examples of docs/plugin-protocol.md, run by exec through every tool
// path (plugin-protocol.md §5.1): the Python guard no_secrets.py, the
// TypeScript recorder recorder.ts and the deployment dsh.yaml that loads
// both next to the default stack. Each test skips with a clear message
// when its language is missing, except under CI=true, where .ci/run has
// installed them and a missing one fails.
package exec_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/cmd"
	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/internal/npmtest"
	_ "github.com/dsh-go/dsh/plugins/standard"
)

// need skips t (or fails it under CI) with why.
func need(t *testing.T, why string) {
	t.Helper()
	npmtest.Need(t, why)
}

// python returns python3's directory.
func python(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		need(t, "python3 is not on PATH (the no-secrets example is a Python 3 script)")
	}
	return filepath.Dir(p)
}

// node returns the directory of a Node 22 or later: the node on PATH, or
// the one the npm test packages hold (internal/npmtest).
func node(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("node"); err == nil {
		out, err := exec.Command(p, "--version").Output()
		major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 2)[0])
		if err == nil && major >= 22 {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			return filepath.Dir(p)
		}
	}
	p := npmtest.Node(t)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Dir(p)
}

// onPath puts dirs first on PATH, where dshhost finds python3 and node for
// the deployment's commands.
func onPath(t *testing.T, dirs ...string) {
	t.Setenv("PATH", strings.Join(append(dirs, os.Getenv("PATH")), string(os.PathListSeparator)))
}

// deployment is the example deployment file.
func deployment(t *testing.T) string {
	p, err := filepath.Abs("dsh.yaml")
	require.NoError(t, err)
	return p
}

// workspace returns a fresh workspace reached through a symlink, so that
// rel is seen to be taken against the real path.
func workspace(t *testing.T) (link, real string) {
	real, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	link = filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.Symlink(real, link))
	return link, real
}

type line struct {
	I       int    `json:"i"`
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
	Code    string `json:"code"`
}

// run runs `dshhost run` on the deployment dep with the script's calls in
// one conversation.
func run(t *testing.T, dep, w string, flags []string, calls ...string) []line {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append([]string{"run", "--config", dep, "--workspace", w}, flags...)
	code := cmd.Run(context.Background(), cmd.Env{Stdin: strings.NewReader("[" + strings.Join(calls, ",") + "]"),
		Stdout: &stdout, Stderr: &stderr, Environ: []string{}, Dir: w}, append(args, "-"))
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	var out []line
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var l line
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		out = append(out, l)
	}
	require.Len(t, out, len(calls), "stderr: %s", stderr.String())
	return out
}

func call(tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"tool": tool, "args": args})
	return string(b)
}

// The secrets are built from pieces so that this file holds none.
var (
	awsKey     = "AKIA" + "IOSFODNN7EXAMPLE"
	privateKey = "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
	ghToken    = "ghp_" + strings.Repeat("a1B2", 9)
)

func TestNoSecretsRefusesSecretFilesAndContent(t *testing.T) {
	onPath(t, python(t))
	w, real := workspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(real, ".env"), []byte("A=1\n"), 0o644))
	require.NoError(t, os.Symlink(".env", filepath.Join(real, "settings.txt")))
	require.NoError(t, os.WriteFile(filepath.Join(real, "app.py"), []byte("TOKEN = None\n"), 0o644))
	out := run(t, deployment(t), w, []string{"--disable", "recorder"},
		call("write", map[string]any{"file_path": ".env.local", "content": "A=1\n"}),
		call("write", map[string]any{"file_path": "certs/server.pem", "content": "x"}),
		call("write", map[string]any{"file_path": "id_rsa.pub", "content": "ssh-rsa AAAA"}),
		call("read", map[string]any{"file_path": "settings.txt"}),
		call("edit", map[string]any{"file_path": "settings.txt", "old_string": "A=1", "new_string": "A=2"}),
		call("write", map[string]any{"file_path": "notes.md", "content": "key: " + awsKey}),
		call("write", map[string]any{"file_path": "deploy/key", "content": privateKey}),
		call("read", map[string]any{"file_path": "app.py"}),
		call("edit", map[string]any{"file_path": "app.py", "old_string": "None", "new_string": `"` + ghToken + `"`}),
		call("edit", map[string]any{"file_path": "app.py", "old_string": "None", "new_string": `os.environ["TOKEN"]`}),
		call("write", map[string]any{"file_path": "big.txt", "content": strings.Repeat("x", 2<<20)}),
	)
	want := []struct{ code, text string }{
		{"SECRET_FILE", `Error: cannot write "` + w + `/.env.local": .env* files are protected by no-secrets`},
		{"SECRET_FILE", `Error: cannot write "` + w + `/certs/server.pem": *.pem files are protected by no-secrets`},
		{"SECRET_FILE", `Error: cannot write "` + w + `/id_rsa.pub": id_rsa* files are protected by no-secrets`},
		{"", ""},
		{"SECRET_FILE", `Error: cannot edit "` + w + `/settings.txt": .env* files are protected by no-secrets`},
		{"SECRET_CONTENT", `Error: cannot write "` + w + `/notes.md": the change contains what looks like an AWS access key id`},
		{"SECRET_CONTENT", `Error: cannot write "` + w + `/deploy/key": the change contains what looks like a private key`},
		{"", ""},
		{"SECRET_CONTENT", `Error: cannot edit "` + w + `/app.py": the change contains what looks like a GitHub token`},
		{"", "The file " + w + "/app.py has been updated successfully."},
		{"SECRET_UNCHECKED", `Error: cannot write "` + w + `/big.txt": the change is too large to check for secrets`},
	}
	for i, wt := range want {
		if wt.text == "" {
			assert.False(t, out[i].IsError, "call %d: %s", i, out[i].Text)
			continue
		}
		assert.Equal(t, wt.code, out[i].Code, "call %d", i)
		assert.Equal(t, wt.text, out[i].Text, "call %d", i)
	}
	env, err := os.ReadFile(filepath.Join(real, ".env"))
	require.NoError(t, err)
	assert.Equal(t, "A=1\n", string(env), "a symlink to .env is refused by its rel")
	for _, f := range []string{".env.local", "certs/server.pem", "id_rsa.pub", "notes.md", "deploy/key", "big.txt"} {
		assert.NoFileExists(t, filepath.Join(real, f))
	}
}

// records reads the recorder's JSONL file.
func records(t *testing.T, file string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var out []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		out = append(out, m)
	}
	return out
}

func TestTheRecorderAppendsEveryObservation(t *testing.T) {
	onPath(t, node(t))
	w, real := workspace(t)
	file := filepath.Join(t.TempDir(), "observations.jsonl")
	out := run(t, deployment(t), w, []string{"--disable", "no-secrets", "--set", "recorder.settings={path: " + file + "}"},
		call("write", map[string]any{"file_path": "a.txt", "content": "one\n"}),
		call("read", map[string]any{"file_path": "a.txt"}),
		call("edit", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "two"}),
		call("read", map[string]any{"file_path": "missing.txt"}),
		call("list", map[string]any{"path": "."}),
	)
	for _, l := range out[:3] {
		require.False(t, l.IsError, l.Text)
	}
	recs := records(t, file) // the run has ended: the recorder flushed and exited
	require.Len(t, recs, 4, "write, read, edit and the absent read; list observes nothing")
	var tools []string
	for i, r := range recs {
		tools = append(tools, r["actor"].(map[string]any)["tool"].(string))
		assert.Regexp(t, `^cli/run/`, r["actor"].(map[string]any)["conversation"], i)
		assert.Equal(t, "cli", r["actor"].(map[string]any)["principal"], i)
		assert.NotEmpty(t, r["time"], i)
	}
	assert.Equal(t, []string{"write", "read", "edit", "read"}, tools)
	a := recs[2]["target"].(map[string]any)
	assert.Equal(t, map[string]any{"path": w + "/a.txt", "key": real + "/a.txt", "rel": "a.txt"}, a)
	assert.Equal(t, "present", recs[2]["kind"])
	assert.Equal(t, "absent", recs[3]["kind"])
	assert.Nil(t, recs[3]["version"])
}

// TestBothThroughTheEditor loads dsh.yaml's two exec entries next to the
// editor tool, whose create, str_replace and insert ask the same intents
// and emit the same observations.
func TestBothThroughTheEditor(t *testing.T) {
	onPath(t, python(t), node(t))
	w, real := workspace(t)
	file := filepath.Join(t.TempDir(), "observations.jsonl")
	dep := filepath.Join(t.TempDir(), "dsh.yaml")
	text, err := os.ReadFile(deployment(t))
	require.NoError(t, err)
	// The same file with the editor listed and its commands taken from the
	// examples' directory.
	dir := filepath.Dir(deployment(t))
	yaml := strings.Replace(string(text), "  - name: mcp\n", "  - name: mcp\n  - name: tooleditor\n", 1)
	yaml = strings.NewReplacer("[python3, no_secrets.py]", "[python3, "+dir+"/no_secrets.py]",
		"[node, recorder.ts]", "[node, "+dir+"/recorder.ts]", "/tmp/dsh-observations.jsonl", file).Replace(yaml)
	require.NoError(t, os.WriteFile(dep, []byte(yaml), 0o644))
	loaded, err := config.Load(config.Options{File: dep, Workspace: w, Environ: []string{}})
	require.NoError(t, err)
	require.Len(t, loaded.Entries, 9)

	out := run(t, dep, w, nil,
		call("str_replace_editor", map[string]any{"command": "create", "path": w + "/cfg.txt", "file_text": "token = none\n"}),
		call("str_replace_editor", map[string]any{"command": "str_replace", "path": w + "/cfg.txt", "old_str": "none", "new_str": ghToken}),
		call("str_replace_editor", map[string]any{"command": "insert", "path": w + "/cfg.txt", "insert_line": 1, "new_str": "# a comment"}),
		call("str_replace_editor", map[string]any{"command": "create", "path": w + "/.env", "file_text": "A=1\n"}),
		call("str_replace_editor", map[string]any{"command": "view", "path": w + "/cfg.txt"}),
	)
	require.Len(t, out, 5)
	assert.False(t, out[0].IsError, out[0].Text)
	assert.Equal(t, `Error: cannot edit "`+w+`/cfg.txt": the change contains what looks like a GitHub token`, out[1].Text)
	assert.False(t, out[2].IsError, out[2].Text)
	assert.Equal(t, "SECRET_FILE", out[3].Code, out[3].Text)
	assert.False(t, out[4].IsError, out[4].Text)
	got, err := os.ReadFile(filepath.Join(real, "cfg.txt"))
	require.NoError(t, err)
	assert.Equal(t, "token = none\n# a comment\n", string(got))

	var tools []string
	for _, r := range records(t, file) {
		tools = append(tools, r["actor"].(map[string]any)["tool"].(string)+":"+r["kind"].(string))
	}
	assert.Equal(t, []string{"str_replace_editor:present", "str_replace_editor:present", "str_replace_editor:present"}, tools,
		"create, insert and view: the refused calls observe nothing")
}
