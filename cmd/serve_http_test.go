package cmd_test

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// startHTTP starts `dshhost serve --http 127.0.0.1:0 args...` and returns
// the process and the URL from its `listening on` line.
func startHTTP(t *testing.T, env []string, args ...string) (*exec.Cmd, string, *stderrLog) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}, env...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	log := &stderrLog{}
	sc := bufio.NewScanner(stderr)
	url := make(chan string, 1)
	go func() {
		for sc.Scan() {
			line := sc.Text()
			log.add(line)
			if u, ok := strings.CutPrefix(line, "listening on "); ok {
				url <- u
			}
		}
	}()
	select {
	case u := <-url:
		return cmd, u, log
	case <-time.After(20 * time.Second):
		t.Fatal("no `listening on` line")
		return nil, "", nil
	}
}

// stderrLog collects a process's stderr lines while a test reads them.
type stderrLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *stderrLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

func (l *stderrLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// TestServeOverHTTP: serve --http with DSH_MCP_TOKEN serves /mcp to the
// go-sdk client with that token, refuses requests without it, and exits 0
// on SIGTERM.
func TestServeOverHTTP(t *testing.T) {
	w := workspace(t)
	writeFile(t, filepath.Join(w, "a.txt"), "over http\n")
	cmd, url, _ := startHTTP(t, []string{"DSH_MCP_TOKEN=s3cret"}, "--workspace", w)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+/mcp$`, url)

	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: stacktest.Bearer{Token: "s3cret", Next: http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), tr, nil)
	require.NoError(t, err)
	assert.Contains(t, text(t, callTool(t, cs, "read", map[string]any{"file_path": "a.txt"})), "1: over http")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, "exit status 0")
	case <-time.After(20 * time.Second):
		t.Fatal("serve --http did not exit on SIGTERM")
	}
}

// TestServeHTTPGeneratesAToken: without a token, serve prints a generated
// one once, after the listening line.
func TestServeHTTPGeneratesAToken(t *testing.T) {
	cmd, url, log := startHTTP(t, nil, "--workspace", workspace(t))
	var token string
	require.Eventually(t, func() bool {
		for l := range strings.SplitSeq(log.String(), "\n") {
			if tok, ok := strings.CutPrefix(l, "bearer token (send it as Authorization: Bearer <token>): "); ok {
				token = tok
			}
		}
		return token != ""
	}, 5*time.Second, 10*time.Millisecond)
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: stacktest.Bearer{Token: token, Next: http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), tr, nil)
	require.NoError(t, err)
	_, err = cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
}

// TestServeRefusesUnsafeHTTP: a non-loopback address needs an explicit
// token, and --no-auth needs a loopback address (exit 2, nothing served).
func TestServeRefusesUnsafeHTTP(t *testing.T) {
	w := workspace(t)
	r := dshhost(t, w, "", nil, "serve", "--http", "0.0.0.0:0")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `mcp: listening on "0.0.0.0:0", which is not loopback, needs an explicit token (tokenFile, DSH_MCP_TOKEN or tokens)`)
	r = dshhost(t, w, "", []string{"DSH_MCP_TOKEN=t"}, "serve", "--http", "0.0.0.0:0", "--no-auth")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `mcp: noAuth is accepted only on a loopback address, not "0.0.0.0:0"`)
}

// TestServeHTTPNeedsAWorkspace: over HTTP no client's roots choose the
// workspace, so one must be configured (conversations.md §4.1); flag, env
// and file each count.
func TestServeHTTPNeedsAWorkspace(t *testing.T) {
	w := workspace(t)
	r := dshhost(t, w, "", []string{"DSH_MCP_TOKEN=t"}, "serve", "--http", "127.0.0.1:0")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "dshhost serve: --http needs a workspace (--workspace DIR, DSH_WORKSPACE or workspace: in the deployment)\n", r.stderr)
	cmd, _, _ := startHTTP(t, []string{"DSH_MCP_TOKEN=t", "DSH_WORKSPACE=" + w})
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait())
}

// TestServeStdioAnswersBadLines: through the binary, a line that is not
// JSON gets a parse-error reply and the session goes on.
func TestServeStdioAnswersBadLines(t *testing.T) {
	w := workspace(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`this is not json`,
	}, "\n") + "\n"
	for i := 2; i < 22; i++ {
		in += `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"list","arguments":{}}}` + "\n"
	}
	r := dshhost(t, w, in, nil, "serve", "--workspace", w)
	assert.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 22, r.stdout) // answers may come in any order
	assert.Contains(t, lines, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not valid JSON"}}`)
	for i := 2; i < 22; i++ {
		assert.True(t, slices.ContainsFunc(lines, func(l string) bool {
			return strings.HasPrefix(l, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result":{"content":`)
		}), "call %d answered although the input ended right after it", i)
	}
}

// TestCallNeverStartsTheMCPServer: the mcp entry's keys are accepted in
// the environment by every command, but call does not listen.
func TestCallNeverStartsTheMCPServer(t *testing.T) {
	w := workspace(t)
	r := dshhost(t, w, "", []string{"DSH_MCP_TOKEN=t", "DSH_MCP_HTTP=127.0.0.1:0"}, "call", "list", "{}")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "listening on")
	r = dshhost(t, w, "", nil, "plugins")
	assert.NotContains(t, r.stdout, "mcp")
}
