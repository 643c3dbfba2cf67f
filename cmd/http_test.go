package cmd_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
)

var listening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`)

// startHTTP starts `serve --http 127.0.0.1:0` with extra arguments and env,
// and returns its URL (from the `listening on` line) and the process.
func startHTTP(t *testing.T, w string, env []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--workspace", w, "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url := <-found:
		return url, cmd
	case <-time.After(20 * time.Second):
		t.Fatal("serve --http did not say where it listens")
		return "", nil
	}
}

// TestServeHTTP: serve --http with DSH_MCP_TOKEN answers an authorised
// go-sdk client (read, then edit), refuses a request without the token, and
// exits 0 on SIGTERM.
func TestServeHTTP(t *testing.T) {
	w := workspace(t)
	writeFile(t, filepath.Join(w, "a.txt"), "x=1\n")
	url, cmd := startHTTP(t, w, []string{"DSH_MCP_TOKEN=s3cret"})

	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: stacktest.Bearer{Token: "s3cret", Next: http.DefaultTransport}}}, nil)
	require.NoError(t, err)
	res := callTool(t, cs, "read", map[string]any{"file_path": "a.txt"})
	require.False(t, res.IsError, text(t, res))
	res = callTool(t, cs, "edit", map[string]any{"file_path": "a.txt", "old_string": "x=1", "new_string": "x=2"})
	require.False(t, res.IsError, text(t, res))
	b, err := os.ReadFile(filepath.Join(w, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "x=2\n", string(b))
	require.NoError(t, cs.Close())

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, "exit status 0")
	case <-time.After(15 * time.Second):
		t.Fatal("serve --http did not stop on SIGTERM")
	}
}

// TestServeHTTPRefusals: no explicit token off loopback, --no-auth off
// loopback, and half a TLS pair refuse to start.
func TestServeHTTPRefusals(t *testing.T) {
	w := workspace(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--http", "0.0.0.0:0"}, "is not a loopback address: give the bearer token explicitly"},
		{[]string{"--http", "0.0.0.0:0", "--no-auth"}, "--no-auth is accepted only on a loopback address"},
		{[]string{"--http", "127.0.0.1:0", "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		cmd := exec.CommandContext(ctx, binary, append([]string{"serve", "--workspace", w}, tc.args...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
		out, err := cmd.CombinedOutput()
		cancel()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, string(out))
		assert.Equal(t, 2, ee.ExitCode(), string(out))
		assert.Contains(t, string(out), tc.msg)
	}
}
