package mcpserver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/mcpserver"
)

func httpStack(t *testing.T) (*stack, *httptest.Server) {
	t.Helper()
	s := newStack(t)
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = s.srv.HTTPHandler(mcpserver.HTTPOptions{Addr: ts.Listener.Addr().String(), Token: "secret"})
	ts.Start()
	t.Cleanup(ts.Close)
	return s, ts
}

func httpConnect(t *testing.T, ts *httptest.Server, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp",
		HTTPClient: &http.Client{Transport: stacktest.Bearer{Token: token, Next: http.DefaultTransport}}}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTPSessionsAreIsolated: two HTTP sessions of one server have their
// own read-before-edit state (issue 12).
func TestHTTPSessionsAreIsolated(t *testing.T) {
	s, ts := httpStack(t)
	assertIsolated(t, s, httpConnect(t, ts, "secret"), httpConnect(t, ts, "secret"))
}

// TestHTTPRefusesWithoutTokenOrFromAForeignOriginOrHost: 401 without the
// token, 403 for a foreign Origin or Host (DNS rebinding), the server's own
// origin passes.
func TestHTTPRefusesWithoutTokenOrFromAForeignOriginOrHost(t *testing.T) {
	_, ts := httpStack(t)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(t *testing.T, edit func(r *http.Request)) *http.Response {
		t.Helper()
		r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/mcp", strings.NewReader(initialize))
		require.NoError(t, err)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		edit(r)
		resp, err := http.DefaultClient.Do(r)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	resp := post(t, func(*http.Request) {})
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, "Bearer", resp.Header.Get("WWW-Authenticate"))
	resp = post(t, func(r *http.Request) { r.Header.Set("Authorization", "Bearer wrong") })
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	withToken := func(r *http.Request) { r.Header.Set("Authorization", "Bearer secret") }
	resp = post(t, func(r *http.Request) { withToken(r); r.Header.Set("Origin", "https://evil.example") })
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp = post(t, func(r *http.Request) { withToken(r); r.Host = "evil.example" })
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a rebinding Host is refused")
	resp = post(t, func(r *http.Request) { withToken(r); r.Header.Set("Origin", ts.URL) })
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the server's own origin passes")
	resp = post(t, func(r *http.Request) {
		withToken(r)
		r.Host = "localhost:" + ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
	})
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a loopback name passes")
}
