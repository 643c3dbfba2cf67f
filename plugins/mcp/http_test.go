package mcp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/frontend"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// fixedDir is a settled workspace.
type fixedDir string

func (d fixedDir) Dir() string                         { return string(d) }
func (fixedDir) Ready() error                          { return nil }
func (fixedDir) Pending() bool                         { return false }
func (fixedDir) UseRoot(context.Context, string) error { return nil }
func (fixedDir) NoRoot(string)                         {}

// served is the default stack with the mcp plugin mounted on HTTP.
type served struct {
	*stacktest.Stack
	srv    *mcpserver.Server
	stderr *bytes.Buffer
}

// serveHTTP mounts the plugin on a free loopback port; edit adjusts the
// config (token "secret" unless changed).
func serveHTTP(t testing.TB, edit func(*mcpserver.Config)) *served {
	t.Helper()
	return serveStackHTTP(t, stacktest.Options{}, edit)
}

// serveStackHTTP is serveHTTP over the stack of opts.
func serveStackHTTP(t testing.TB, opts stacktest.Options, edit func(*mcpserver.Config)) *served {
	t.Helper()
	st := stacktest.New(t, opts)
	cfg := mcpserver.Plugin.DefaultConfig().(mcpserver.Config)
	cfg.HTTP, cfg.Token, cfg.Workspace = "127.0.0.1:0", "secret", fixedDir(st.W)
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	if edit != nil {
		edit(&cfg)
	}
	inst, err := st.Host.Plugin(t.Context(), mcpserver.Plugin, cfg)
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))
	fe, ok := frontend.Key.Get(st.Host.Root())
	srv, _ := fe.(*mcpserver.Server)
	require.True(t, ok)
	return &served{Stack: st, srv: srv, stderr: &stderr}
}

// connect opens one legacy go-sdk client session (2025-06-18) over HTTP.
func (s *served) connect(t *testing.T, token string) (*mcp.ClientSession, error) {
	return s.connectWith(t, token, false)
}

// connectModern opens one 2026-07-28 go-sdk client over HTTP: no session,
// every request stateless.
func (s *served) connectModern(t *testing.T, token string) (*mcp.ClientSession, error) {
	return s.connectAt(t, token, false, "")
}

// connectWith opens one legacy session, optionally without the standalone
// SSE stream (whose end at shutdown the SDK client reports as the failure
// of every pending call, even one whose answer arrived).
func (s *served) connectWith(t *testing.T, token string, noSSE bool) (*mcp.ClientSession, error) {
	return s.connectAt(t, token, noSSE, oldProtocol)
}

// connectAt opens one client at protocol version ("": the SDK's latest).
func (s *served) connectAt(t *testing.T, token string, noSSE bool, version string) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: s.srv.URL(), HTTPClient: &http.Client{Transport: stacktest.Bearer{Token: token, Next: http.DefaultTransport}}, MaxRetries: -1, DisableStandaloneSSE: noSSE}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// post sends one raw request to the endpoint.
func (s *served) post(t *testing.T, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.srv.URL(), strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestHTTPListensAndSaysWhere(t *testing.T) {
	s := serveHTTP(t, nil)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+/mcp$`, s.srv.URL())
	assert.Equal(t, "listening on "+s.srv.URL()+"\n", s.stderr.String(), "an explicit token is not printed")
}

func TestHTTPNeedsTheBearerToken(t *testing.T) {
	s := serveHTTP(t, nil)
	for name, header := range map[string]map[string]string{
		"no token":    nil,
		"wrong token": {"Authorization": "Bearer secreT"},
		"not bearer":  {"Authorization": "Basic secret"},
	} {
		t.Run(name, func(t *testing.T) {
			resp := s.post(t, initialize, header)
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			assert.True(t, strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer"), resp.Header.Get("WWW-Authenticate"))
		})
	}
	_, err := s.connect(t, "")
	assert.Error(t, err, "the SDK client without a token is refused")
	cs, err := s.connect(t, "secret")
	require.NoError(t, err)
	tl, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	assert.Len(t, tl.Tools, len(s.Registry.Tools()))
}

func TestHTTPGeneratesAndPrintsATokenOnce(t *testing.T) {
	s := serveHTTP(t, func(c *mcpserver.Config) { c.Token = "" })
	lines := strings.Split(strings.TrimSpace(s.stderr.String()), "\n")
	require.Len(t, lines, 2)
	token, ok := strings.CutPrefix(lines[1], "bearer token (send it as Authorization: Bearer <token>): ")
	require.True(t, ok, lines[1])
	assert.Regexp(t, `^[0-9a-f]{64}$`, token)
	_, err := s.connect(t, token)
	require.NoError(t, err)
}

func TestHTTPTokenFromAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(file, []byte("from-file\n"), 0o600))
	s := serveHTTP(t, func(c *mcpserver.Config) { c.Token, c.TokenFile = "", file })
	assert.Equal(t, http.StatusUnauthorized, s.post(t, initialize, nil).StatusCode)
	_, err := s.connect(t, "from-file")
	require.NoError(t, err)
}

func TestHTTPNoAuthOnLoopback(t *testing.T) {
	s := serveHTTP(t, func(c *mcpserver.Config) { c.Token, c.NoAuth = "", true })
	assert.Equal(t, "listening on "+s.srv.URL()+"\n", s.stderr.String())
	_, err := s.connect(t, "")
	require.NoError(t, err)
}

func TestHTTPRefusesUnsafeAddresses(t *testing.T) {
	p := mcpserver.Plugin
	_, err := config.Decode(p, map[string]any{"http": "0.0.0.0:0"})
	assert.ErrorContains(t, err, `mcp: listening on "0.0.0.0:0", which is not loopback, needs an explicit token (tokenFile, DSH_MCP_TOKEN or tokens)`)
	_, err = config.Decode(p, map[string]any{"http": "0.0.0.0:0", "token": "t", "noAuth": true})
	assert.ErrorContains(t, err, `mcp: noAuth is accepted only on a loopback address, not "0.0.0.0:0"`)
	_, err = config.Decode(p, map[string]any{"http": "0.0.0.0:0", "token": "t"})
	assert.NoError(t, err)
	_, err = config.Decode(p, map[string]any{"http": "[::1]:0", "noAuth": true})
	assert.NoError(t, err)
	_, err = config.Decode(p, map[string]any{"tlsCert": "c.pem"})
	assert.ErrorContains(t, err, "mcp: tlsCert and tlsKey go together")
	_, err = config.Decode(p, map[string]any{"tlsCert": "c.pem", "tlsKey": "k.pem"})
	assert.ErrorContains(t, err, "mcp: tlsCert and tlsKey need http (TLS applies to the HTTP transport; stdio has none)")
	_, err = config.Decode(p, map[string]any{"http": "127.0.0.1:0", "tlsCert": "c.pem", "tlsKey": "k.pem"})
	assert.NoError(t, err)
	// Values an Origin header can never carry are errors, not silent no-ops.
	for _, bad := range []string{"*", "ide.example", "ftp://ide.example", "https://ide.example/path", "https://"} {
		_, err = config.Decode(p, map[string]any{"allowOrigins": []any{bad}})
		assert.ErrorContains(t, err, fmt.Sprintf("mcp: allowOrigins[0] must be scheme://host[:port] with scheme http or https, not %q", bad))
	}
	for _, good := range []string{"https://ide.example", "http://localhost:3000", "https://ide.example/"} {
		_, err = config.Decode(p, map[string]any{"allowOrigins": []any{good}})
		assert.NoError(t, err, good)
	}
	_, err = config.Decode(p, map[string]any{"maxInFlight": 0, "callTimeout": "0s"})
	assert.ErrorContains(t, err, "mcp: maxInFlight must be a positive integer")
	assert.ErrorContains(t, err, "mcp: callTimeout must be a positive duration")
}

func TestHTTPDNSRebindingDefence(t *testing.T) {
	s := serveHTTP(t, func(c *mcpserver.Config) {
		c.AllowOrigins = []string{"https://ide.example"}
		c.AllowHosts = []string{"mcp.internal"}
	})
	port := s.srv.URL()[len("http://127.0.0.1:") : len(s.srv.URL())-len("/mcp")]
	auth := "Bearer secret"
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"a foreign origin", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"our origin on another port", map[string]string{"Origin": "http://localhost:1"}, http.StatusForbidden},
		{"a foreign host", map[string]string{"Host": "evil.example:" + port}, http.StatusForbidden},
		{"a foreign host, even with the token", map[string]string{"Host": "evil.example", "Authorization": auth}, http.StatusForbidden},
		{"our own origin", map[string]string{"Origin": "http://localhost:" + port, "Authorization": auth}, http.StatusOK},
		{"our own IP origin", map[string]string{"Origin": "http://127.0.0.1:" + port, "Authorization": auth}, http.StatusOK},
		{"an allowed origin", map[string]string{"Origin": "https://ide.example", "Authorization": auth}, http.StatusOK},
		{"an allowed host", map[string]string{"Host": "mcp.internal:" + port, "Authorization": auth}, http.StatusOK},
		{"localhost", map[string]string{"Host": "localhost:" + port, "Authorization": auth}, http.StatusOK},
		{"no origin", map[string]string{"Authorization": auth}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, s.post(t, initialize, tc.header).StatusCode)
		})
	}
}

func TestHTTPSessionsAreIsolated(t *testing.T) {
	s := serveHTTP(t, nil)
	a, err := s.connect(t, "secret")
	require.NoError(t, err)
	b, err := s.connect(t, "secret")
	require.NoError(t, err)
	assertIsolated(t, &stack{Stack: s.Stack, srv: s.srv}, peer{cs: a}, peer{cs: b})
	assert.Equal(t, 2, s.srv.Sessions())
}

func TestHTTPMalformedBodiesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	s := serveHTTP(t, nil)
	cs, err := s.connect(t, "secret")
	require.NoError(t, err)
	id := cs.ID()
	require.NotEmpty(t, id)
	for _, body := range []string{"this is not json", "42", "[]"} {
		resp := s.post(t, body, map[string]string{"Authorization": "Bearer secret", "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"})
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
	}
	_, isErr := call(t, cs, "list", map[string]any{})
	assert.False(t, isErr, "the session still works")
}

func TestHTTPBodyLimitIsMaxMessageBytes(t *testing.T) {
	s := serveHTTP(t, func(c *mcpserver.Config) { c.MaxMessageBytes = 1024 })
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	assert.Equal(t, http.StatusRequestEntityTooLarge, s.post(t, big, map[string]string{"Authorization": "Bearer secret"}).StatusCode)
}

// closedSessions records conversation/closed and fs/observed
// conversation ids.
type closedSessions struct {
	mu       sync.Mutex
	closed   map[string]int
	observed map[string]bool
}

func recordSessions(t *testing.T, h *host.Host) *closedSessions {
	r := &closedSessions{closed: map[string]int{}, observed: map[string]bool{}}
	_, err := events.ConversationClosed.On(h.Root(), func(_ context.Context, id string) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.closed[id]++
		return nil
	})
	require.NoError(t, err)
	_, err = events.FSObserved.On(h.Root(), func(_ context.Context, o events.Observation) error {
		if id, ok := o.Actor.Conversation(); ok {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.observed[id] = true
		}
		return nil
	})
	require.NoError(t, err)
	return r
}

func (r *closedSessions) counts() (closed, observed int, sameSet bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sameSet = len(r.closed) == len(r.observed)
	for id, n := range r.closed {
		sameSet = sameSet && n == 1 && r.observed[id]
	}
	return len(r.closed), len(r.observed), sameSet
}

// TestHTTPEndedSessionsEmitConversationClosed: legacy sessions ended by
// DELETE (the SDK client's Close) and by the idle timeout each emit
// conversation/closed once, so fspolicy drops their state (its counts:
// fspolicy's own test).
func TestHTTPEndedSessionsEmitConversationClosed(t *testing.T) {
	s := serveHTTP(t, func(c *mcpserver.Config) { c.ConversationIdleTimeout = 300 * time.Millisecond })
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "a.txt"), []byte("a\n"), 0o644))
	rec := recordSessions(t, s.Host)
	const n = 50
	for i := range n {
		cs, err := s.connect(t, "secret")
		require.NoError(t, err)
		_, isErr := call(t, cs, "read", map[string]any{"file_path": "a.txt"})
		require.False(t, isErr)
		if i%2 == 0 {
			require.NoError(t, cs.Close(), "DELETE ends the session")
		} // the others go idle
	}
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		closed, observed, same := rec.counts()
		assert.Equal(c, n, observed)
		assert.Equal(c, n, closed)
		assert.True(c, same, "every session that read was closed exactly once")
		assert.Zero(c, s.srv.Sessions())
	}, 10*time.Second, 50*time.Millisecond)
}

func TestHTTPShutdownDrainsAndCancelsAListenerThatIgnoresItsContext(t *testing.T) {
	s := serveHTTP(t, func(c *mcpserver.Config) { c.DrainTimeout = 500 * time.Millisecond })
	stuck, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the stack's shutdown
	_, err := events.FSObserved.On(s.Host.Root(), func(_ context.Context, o events.Observation) error {
		if strings.HasSuffix(o.Target.DisplayPath, "stuck.txt") {
			close(stuck)
			<-release // ignores its context
		}
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "stuck.txt"), []byte("x\n"), 0o644))
	cs, err := s.connect(t, "secret")
	require.NoError(t, err)
	answered := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "stuck.txt"}})
		if err != nil {
			answered <- "error: " + err.Error()
			return
		}
		answered <- res.Content[0].(*mcp.TextContent).Text
	}()
	<-stuck
	start := time.Now()
	err = s.srv.Shutdown(context.Background())
	assert.ErrorIs(t, err, mcpserver.ErrDrainIncomplete)
	assert.Less(t, time.Since(start), 5*time.Second, "drain timeout + abort grace + session close bound")
	select {
	case got := <-answered:
		assert.NotEmpty(t, got)
	case <-time.After(5 * time.Second):
		t.Fatal("the stuck call was never answered")
	}
	// The host's own bound on a stuck listener is its dispose timeout
	// (host tests); the server no longer holds anything here.
	_, err = s.connect(t, "secret")
	assert.Error(t, err, "no longer accepting")
}

func TestHTTPShutdownWaitsForCallsInFlight(t *testing.T) {
	s := serveHTTP(t, nil)
	slow := make(chan struct{})
	_, err := events.FSObserved.On(s.Host.Root(), func(ctx context.Context, o events.Observation) error {
		if strings.HasSuffix(o.Target.DisplayPath, "slow.txt") {
			close(slow)
			time.Sleep(300 * time.Millisecond)
		}
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "slow.txt"), []byte("slow\n"), 0o644))
	cs, err := s.connectWith(t, "secret", true)
	require.NoError(t, err)
	answered := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "slow.txt"}})
		if err != nil {
			answered <- err.Error()
			return
		}
		answered <- res.Content[0].(*mcp.TextContent).Text
	}()
	<-slow
	require.NoError(t, s.srv.Shutdown(context.Background()), "the call finished within the drain")
	assert.Contains(t, <-answered, "1: slow")
}

func ExampleServer_URL() {
	fmt.Println(mcpserver.Path)
	// Output: /mcp
}

// quietLogger drops the SDK's per-session info lines.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// DELETE ends a session promptly: its running calls are cancelled first
// (the SDK closes a session only once its handlers have returned), so a
// call that honours its context ends, and the DELETE does not wait for a
// long tool (a trial's grep held a DELETE 28 s).
func TestHTTPDeleteCancelsTheSessionsCalls(t *testing.T) {
	s := serveHTTP(t, nil)
	started := make(chan struct{})
	var once sync.Once
	var cancelled atomic.Bool
	_, err := events.FSObserved.On(s.Host.Root(), func(ctx context.Context, o events.Observation) error {
		if strings.HasSuffix(o.Target.DisplayPath, "slow.txt") {
			once.Do(func() { close(started) })
			select {
			case <-ctx.Done():
				cancelled.Store(true)
			case <-time.After(30 * time.Second):
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "slow.txt"), []byte("slow\n"), 0o644))
	cs, err := s.connectWith(t, "secret", true)
	require.NoError(t, err)
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "slow.txt"}})
	}()
	<-started
	req, err := http.NewRequest(http.MethodDelete, s.srv.URL(), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer secret")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	done := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- -1
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	select {
	case code := <-done:
		assert.Equal(t, http.StatusNoContent, code)
	case <-time.After(10 * time.Second):
		t.Fatal("DELETE waited for the session's running call")
	}
	assert.True(t, cancelled.Load(), "the call's context was cancelled")
}
