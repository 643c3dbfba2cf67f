package cmd_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok)
	return tc.Text
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return res
}

// TestServeOverStdio starts `dshhost serve` as a real subprocess, connects
// with the go-sdk client, lists the tools and performs read → edit → read on
// a temporary workspace, checking the exact texts.
func TestServeOverStdio(t *testing.T) {
	w := workspace(t)
	writeFile(t, filepath.Join(w, "config.txt"), "mode=DEBUG\nlevel=info\n")
	cmd := exec.Command(binary, "serve", "--workspace", w)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	// A long TerminateDuration: Close then only returns nil in time if serve
	// exits by itself on EOF, without being signalled.
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Minute}, nil)
	require.NoError(t, err)

	init := cs.InitializeResult()
	assert.Equal(t, "dshhost", init.ServerInfo.Name)
	assert.Contains(t, init.Instructions, "Use the list tool — not shell ls — to see what a directory contains.")

	tl, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	byName := map[string]*mcp.Tool{}
	for _, tool := range tl.Tools {
		byName[tool.Name] = tool
	}
	require.Len(t, byName, 12) // list, read, write, edit, move, delete, mkdir, file_info, glob, grep, checkpoints, rewind
	read := byName["read"]
	require.NotNil(t, read)
	assert.Equal(t, "Read a UTF-8 text file and return line-numbered content.", read.Description)
	schema, err := json.Marshal(read.InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"file_path":{"type":"string","description":"Path to read, resolved by the filesystem backend."},"offset":{"type":"number","description":"1-based first line to return. Defaults to 1."},"limit":{"type":"number","description":"Maximum number of lines to return. Defaults to 2000."}},"required":["file_path"],"additionalProperties":false}`, string(schema), "the root is closed over MCP (contract §5.3 [D22])")
	outSchema, err := json.Marshal(read.OutputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"endLine":{"type":"integer"},"totalLines":{"type":["integer","null"]},"capped":{"type":"boolean"},"mimeType":{"type":"string"},"bytes":{"type":"integer"}},"required":["path","offset","endLine","totalLines","capped"],"additionalProperties":false}`,
		string(outSchema), "the advertised output schema is the summary's (contract §5.4a)")
	assert.True(t, read.Annotations.ReadOnlyHint)
	assert.True(t, *byName["edit"].Annotations.DestructiveHint)
	assert.True(t, *byName["write"].Annotations.DestructiveHint)
	assert.False(t, *byName["list"].Annotations.DestructiveHint)
	assert.True(t, byName["list"].Annotations.ReadOnlyHint)

	res := callTool(t, cs, "read", map[string]any{"file_path": "config.txt"})
	assert.False(t, res.IsError)
	assert.Equal(t, "<path>"+w+"/config.txt</path>\n<type>file</type>\n<content>\n1: mode=DEBUG\n2: level=info\n\n(End of file - total 2 lines)\n</content>", text(t, res))
	assert.Equal(t, map[string]any{"path": w + "/config.txt", "offset": 1.0, "endLine": 2.0, "totalLines": 2.0, "capped": false}, res.StructuredContent,
		"structuredContent is the summary, not the lines (contract §5.4a)")

	res = callTool(t, cs, "edit", map[string]any{"file_path": "config.txt", "old_string": "DEBUG", "new_string": "RELEASE"})
	assert.False(t, res.IsError)
	assert.Equal(t, "The file "+w+"/config.txt has been updated successfully.", text(t, res))
	assert.Equal(t, map[string]any{"path": w + "/config.txt", "replacements": 1.0}, res.StructuredContent)
	diffs, _ := json.Marshal(res.Meta["diffs"])
	assert.JSONEq(t, `[{"path":"config.txt","oldText":"mode=DEBUG\nlevel=info","newText":"mode=RELEASE\nlevel=info"}]`, string(diffs))

	res = callTool(t, cs, "read", map[string]any{"file_path": "config.txt"})
	assert.Equal(t, "<path>"+w+"/config.txt</path>\n<type>file</type>\n<content>\n1: mode=RELEASE\n2: level=info\n\n(End of file - total 2 lines)\n</content>", text(t, res))

	res = callTool(t, cs, "read", map[string]any{"file_path": "nope.txt"})
	assert.True(t, res.IsError)
	assert.Equal(t, `Error: cannot read "`+w+`/nope.txt": not found`, text(t, res))
	assert.Equal(t, map[string]any{"name": "FsError", "code": "FS_NOT_FOUND"}, res.Meta["error"])

	res = callTool(t, cs, "read", map[string]any{"file_path": "config.txt", "offset": "x"})
	assert.Equal(t, `Error: invalid arguments: "offset" must be a number`, text(t, res), "the registry, not the SDK, validates")

	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rm", Arguments: map[string]any{}})
	assert.Error(t, err, "an unknown tool gets the protocol's error")

	start := time.Now()
	assert.NoError(t, cs.Close(), "a clean shutdown on EOF: exit status 0")
	assert.Less(t, time.Since(start), 30*time.Second, "serve exits on EOF without being signalled")
}

// TestServeTakesTheClientsFirstRoot: started in / with no --workspace,
// serve refuses / as a guess and asks the client for its roots; a client with
// a root gets that workspace, a client without roots gets an error telling it
// to pass --workspace.
func TestServeTakesTheClientsFirstRoot(t *testing.T) {
	w := workspace(t)
	writeFile(t, filepath.Join(w, "a.txt"), "from the root\n")
	start := func(t *testing.T, roots ...*mcp.Root) *mcp.ClientSession {
		cmd := exec.Command(binary, "serve")
		cmd.Dir = "/"
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		client.AddRoots(roots...)
		cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	t.Run("with a root", func(t *testing.T) {
		cs := start(t, &mcp.Root{URI: "file://" + w, Name: "project"})
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "a.txt"}})
			if assert.NoError(c, err) && assert.Len(c, res.Content, 1) {
				assert.Contains(c, res.Content[0].(*mcp.TextContent).Text, "1: from the root")
			}
		}, 10*time.Second, 50*time.Millisecond)
	})
	t.Run("without roots", func(t *testing.T) {
		cs := start(t)
		res := callTool(t, cs, "list", map[string]any{})
		assert.True(t, res.IsError)
		assert.Equal(t, "Error: dshhost has no workspace: it was started in / and the client offered no roots; restart it with --workspace DIR", text(t, res))
	})
	t.Run("with only refused roots", func(t *testing.T) {
		cs := start(t, &mcp.Root{URI: "file:///", Name: "everything"})
		res := callTool(t, cs, "list", map[string]any{})
		assert.True(t, res.IsError)
		assert.Equal(t, `Error: dshhost has no workspace: it was started in / and the client's roots were refused: "file:///" (the file system root is never used as the workspace); restart it with --workspace DIR`, text(t, res))
	})
}

// TestServeShutsDownCleanlyOnSIGTERM: a signal ends serve with every plugin
// disposed and exit status 0.
func TestServeShutsDownCleanlyOnSIGTERM(t *testing.T) {
	w := workspace(t)
	cmd := exec.Command(binary, "serve", "--workspace", w, "--log-level", "debug")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	require.NoError(t, err)
	_, err = cs.ListTools(t.Context(), nil)
	require.NoError(t, err)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // the only Wait: this test owns the process
	select {
	case err := <-done:
		assert.NoError(t, err, "exit status 0")
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("dshhost serve did not exit on SIGTERM")
	}
	_ = cs.Close()
	log := stderr.String()
	assert.Contains(t, log, "shutting down")
	for _, id := range []string{"toolfs", "fspolicy", "fssandbox", "fslocal", "tools"} {
		assert.Contains(t, log, `instance=`+id+` from=UNLOADING to=DISPOSED`, "%s is disposed", id)
	}
}

// TestServeBoundsTheDiffs: over diffMaxBytes an edit's _meta carries
// diffsOmitted instead of the diffs, and its structured content stays the
// summary (contract §5.4a [D20]).
func TestServeBoundsTheDiffs(t *testing.T) {
	w := workspace(t)
	writeFile(t, filepath.Join(w, "a.txt"), "alpha\nbeta\ngamma\n")
	cmd := exec.Command(binary, "serve", "--workspace", w, "--set", "toolfs.diffMaxBytes=10", "--disable", "fspolicy")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Minute}, nil)
	require.NoError(t, err)
	defer cs.Close()

	res := callTool(t, cs, "edit", map[string]any{"file_path": "a.txt", "old_string": "beta", "new_string": "BETA"})
	require.False(t, res.IsError, text(t, res))
	assert.Equal(t, true, res.Meta["diffsOmitted"])
	assert.NotContains(t, res.Meta, "diffs")
	assert.Equal(t, map[string]any{"path": w + "/a.txt", "replacements": 1.0}, res.StructuredContent)

	res = callTool(t, cs, "write", map[string]any{"file_path": "b.txt", "content": "x\n"})
	require.False(t, res.IsError, text(t, res))
	assert.Equal(t, map[string]any{"path": w + "/b.txt", "operation": "create"}, res.StructuredContent)
	diffs, _ := json.Marshal(res.Meta["diffs"])
	assert.JSONEq(t, `[]`, string(diffs), "a create has no hunks, so nothing to omit")
}

// TestServeNeedsAFrontEnd: serve finds its front end as the entry that
// provides "frontend"; a deployment without one is refused before anything
// starts, and one whose front end is disabled too.
func TestServeNeedsAFrontEnd(t *testing.T) {
	w := workspace(t)
	file := writeFile(t, filepath.Join(t.TempDir(), "dsh.yaml"), "plugins:\n  - name: fslocal\n  - name: toolfs\n")
	r := dshhost(t, w, "", nil, "serve", "--config", file, "--workspace", w)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, `dshhost serve: the deployment has no front end (no entry provides "frontend"); add "- name: mcp"`+"\n", r.stderr)
	writeFile(t, file, "plugins:\n  - name: fslocal\n  - name: toolfs\n  - {name: mcp, id: front, disabled: true}\n")
	r = dshhost(t, w, "", nil, "serve", "--config", file, "--workspace", w)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, `dshhost serve: the front end "front" is disabled; serve needs it`+"\n", r.stderr)
	r = dshhost(t, w, "", nil, "call", "--config", file, "--workspace", w, "list", "{}")
	assert.Equal(t, 0, r.code, "call needs no front end: %s", r.stderr)

	// serve's flags bind to the front end's entry, whatever its id.
	writeFile(t, file, "plugins:\n  - name: fslocal\n  - name: toolfs\n  - {name: mcp, id: front, config: {maxInFlight: 7}}\n")
	cmd, url, _ := startHTTP(t, []string{"DSH_FRONT_TOKEN=tok"}, "--config", file, "--workspace", w)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+/mcp$`, url)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait())
}

// TestServeWatchReloadsTheFile: `serve --watch` picks up a change of its
// deployment file on the running session: disabling fspolicy lets an unread
// file be edited, without reconnecting.
func TestServeWatchReloadsTheFile(t *testing.T) {
	w := workspace(t)
	writeFile(t, filepath.Join(w, "a.txt"), "x=1\n")
	file := writeFile(t, filepath.Join(t.TempDir(), "dsh.yaml"), "plugins:\n  - name: fslocal\n  - name: fspolicy\n  - name: toolfs\n  - name: mcp\n")
	cmd := exec.Command(binary, "serve", "--watch", "--config", file, "--workspace", w)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	edit := map[string]any{"file_path": "a.txt", "old_string": "x=1", "new_string": "x=2"}
	res := callTool(t, cs, "edit", edit)
	require.True(t, res.IsError)
	assert.Contains(t, text(t, res), "edit requires reading")

	writeFile(t, file, "plugins:\n  - name: fslocal\n  - name: fspolicy\n    disabled: true\n  - name: toolfs\n  - name: mcp\n")
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		res := callTool(t, cs, "edit", edit)
		assert.False(c, res.IsError)
	}, 10*time.Second, 50*time.Millisecond)
}

func TestServeWatchNeedsAFile(t *testing.T) {
	res := dshhost(t, workspace(t), "", nil, "serve", "--watch")
	assert.Equal(t, 2, res.code)
	assert.Contains(t, res.stderr, "--watch needs a deployment file: pass --config FILE")
}

// TestServeWatchKeepsItsFrontEnd: a reload that would remove, rename or
// duplicate the front end is refused, and serve goes on serving.
func TestServeWatchKeepsItsFrontEnd(t *testing.T) {
	w := workspace(t)
	writeFile(t, filepath.Join(w, "a.txt"), "x\n")
	file := writeFile(t, filepath.Join(t.TempDir(), "dsh.yaml"), "plugins:\n  - name: fslocal\n  - name: toolfs\n  - name: mcp\n")
	r := dshhost(t, w, "", nil, "serve", "--config", writeFile(t, filepath.Join(t.TempDir(), "two.yaml"), "plugins:\n  - name: fslocal\n  - name: mcp\n  - {name: mcp, id: second}\n"), "--workspace", w)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, `dshhost serve: the deployment has 2 front ends ("mcp" and "second"); serve mounts exactly one`+"\n", r.stderr)

	cmd := exec.Command(binary, "serve", "--watch", "--config", file, "--workspace", w)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	var logs syncBuffer
	cmd.Stderr = &logs
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	for i, text := range []string{
		"plugins:\n  - name: fslocal\n  - name: toolfs\n",
		"plugins:\n  - name: fslocal\n  - name: toolfs\n  - {name: mcp, id: front}\n",
	} {
		writeFile(t, file, text)
		require.Eventually(t, func() bool {
			return strings.Count(logs.String(), `the front end \"mcp\" cannot be removed, renamed or replaced by a reload`) > i
		}, 10*time.Second, 20*time.Millisecond, logs.String())
		res := callTool(t, cs, "read", map[string]any{"file_path": "a.txt"})
		assert.False(t, res.IsError, "still serving")
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestToolsPrintsWhatClientsGet: `dshhost tools` prints each tool's
// parameters and outputSchema as tools/list gives them to an MCP client
// (the closed input schema, the summary schema), not the in-process ones;
// tools/list orders them by name, tools by registration.
func TestToolsPrintsWhatClientsGet(t *testing.T) {
	w := workspace(t)
	cmd := exec.Command(binary, "serve", "--workspace", w)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer cs.Close()
	tl, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)

	res := dshhost(t, w, "", nil, "tools")
	require.Equal(t, 0, res.code, res.stderr)
	var printed []struct {
		Name         string          `json:"name"`
		Parameters   json.RawMessage `json:"parameters"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &printed))
	require.Len(t, printed, len(tl.Tools))
	byName := map[string]int{}
	for i, p := range printed {
		byName[p.Name] = i
	}
	for _, tool := range tl.Tools {
		i, ok := byName[tool.Name]
		require.True(t, ok, tool.Name)
		in, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		out, err := json.Marshal(tool.OutputSchema)
		require.NoError(t, err)
		assert.JSONEq(t, string(in), string(printed[i].Parameters), tool.Name)
		printedOut := printed[i].OutputSchema
		if printedOut == nil {
			printedOut = json.RawMessage("null") // a tool without a summary: omitted
		}
		assert.JSONEq(t, string(out), string(printedOut), tool.Name)
	}
}
