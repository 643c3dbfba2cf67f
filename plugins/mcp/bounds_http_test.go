package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// rpcErrorOf decodes a JSON-RPC error body.
func rpcErrorOf(t *testing.T, resp *http.Response) (id json.RawMessage, code float64, message string) {
	t.Helper()
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    float64 `json:"code"`
			Message string  `json:"message"`
		} `json:"error"`
	}
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m.ID, m.Error.Code, m.Error.Message
}

// TestHTTPIDsAreCheckedBeforeTheSDK: over HTTP too, an id that cannot come
// back exactly is refused with 400 and -32600, id null.
func TestHTTPIDsAreCheckedBeforeTheSDK(t *testing.T) {
	s := serveHTTP(t, nil)
	auth := map[string]string{"Authorization": "Bearer secret"}
	for _, tc := range []struct{ id, why string }{
		{`18446744073709551615`, `18446744073709551615 is beyond ±9007199254740991 (2^53−1), the integers every JSON peer reads exactly`},
		{`1.5`, `1.5 is not an integer`},
	} {
		resp := s.post(t, `{"jsonrpc":"2.0","id":`+tc.id+`,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, auth)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		id, code, msg := rpcErrorOf(t, resp)
		assert.Equal(t, "null", string(id))
		assert.Equal(t, float64(-32600), code)
		assert.Equal(t, "invalid request id: "+tc.why, msg)
	}
	resp := s.post(t, `{"jsonrpc":"2.0","id":9007199254740991,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, auth)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, _ := io.ReadAll(resp.Body)
	assert.Contains(t, string(b), `"id":9007199254740991,`, "an exact id comes back exactly")
}

// TestHTTPADuplicateIDInASessionIsAnswered: a request whose id is still in
// flight in the same legacy session is refused with 400 and -32600, the
// ids compared by value ("\u0061b" is the id "ab").
func TestHTTPADuplicateIDInASessionIsAnswered(t *testing.T) {
	const slowRead = `"method":"tools/call","params":{"name":"read","arguments":{"file_path":"slow.txt"}}}`
	for _, tc := range []struct{ name, first, second string }{
		{"the same call", `{"jsonrpc":"2.0","id":77,` + slowRead, `{"jsonrpc":"2.0","id":77,` + slowRead},
		{"an id spelled another way", `{"jsonrpc":"2.0","id":"ab",` + slowRead, `{"jsonrpc":"2.0","id":"\u0061b","method":"ping"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serveHTTP(t, nil)
			started, release := make(chan struct{}), make(chan struct{})
			_, err := events.FSObserved.On(s.Host.Root(), func(_ context.Context, o events.Observation) error {
				if strings.HasSuffix(o.Target.DisplayPath, "slow.txt") {
					close(started)
					<-release
				}
				return nil
			})
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(s.W, "slow.txt"), []byte("x\n"), 0o644))
			cs, err := s.connectWith(t, "secret", true)
			require.NoError(t, err)
			hdr := map[string]string{"Authorization": "Bearer secret", "Mcp-Session-Id": cs.ID(), "Mcp-Protocol-Version": "2025-06-18"}
			first := make(chan int, 1)
			go func() {
				req, _ := http.NewRequest(http.MethodPost, s.srv.URL(), strings.NewReader(tc.first))
				for k, v := range hdr {
					req.Header.Set(k, v)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					first <- -1
					return
				}
				_, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
				first <- resp.StatusCode
			}()
			<-started
			resp := s.post(t, tc.second, hdr)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			_, code, msg := rpcErrorOf(t, resp)
			assert.Equal(t, float64(-32600), code)
			assert.Equal(t, "duplicate request id: a request with this id is still in flight", msg)
			close(release)
			assert.Equal(t, http.StatusOK, <-first)
		})
	}
}

// TestHTTPASlowBodyIsCut: a token holder that sends its body slowly is cut
// at the read timeout.
func TestHTTPASlowBodyIsCut(t *testing.T) {
	s := serveHTTP(t, func(c *mcpserver.Config) { c.ReadTimeout = 300 * time.Millisecond })
	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(s.srv.URL(), "/mcp"), "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer secret\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
		return
	}
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server neither answered nor closed within 10 s")
}

// TestHTTPTheDrainAnswers503: a request that comes while the server drains
// gets 503 with Retry-After: 1, not a refused connection.
func TestHTTPTheDrainAnswers503(t *testing.T) {
	s := serveHTTP(t, func(c *mcpserver.Config) { c.DrainTimeout = 5 * time.Second })
	started, release := make(chan struct{}), make(chan struct{})
	_, err := events.FSObserved.On(s.Host.Root(), func(_ context.Context, o events.Observation) error {
		if strings.HasSuffix(o.Target.DisplayPath, "slow.txt") {
			close(started)
			<-release
		}
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "slow.txt"), []byte("x\n"), 0o644))
	cs, err := s.connectWith(t, "secret", true)
	require.NoError(t, err)
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "slow.txt"}})
	}()
	<-started
	shut := make(chan error, 1)
	go func() { shut <- s.srv.Shutdown(context.Background()) }()
	// Each probe on a connection of its own: the drain closes idle
	// keep-alive connections, and a client that sends on one as it closes
	// gets a reset, which says nothing of what a new request is answered.
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		req, err := http.NewRequest(http.MethodPost, s.srv.URL(), strings.NewReader(initialize))
		require.NoError(c, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer secret")
		resp, err := fresh.Do(req)
		require.NoError(c, err)
		defer resp.Body.Close()
		assert.Equal(c, http.StatusServiceUnavailable, resp.StatusCode)
		assert.Equal(c, "1", resp.Header.Get("Retry-After"))
	}, 5*time.Second, 20*time.Millisecond)
	close(release)
	require.NoError(t, <-shut)
}

// TestHTTPStreamsAreBounded: past 256 open streams a new one gets 503;
// calls go on.
func TestHTTPStreamsAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: opens 257 streams")
	}
	s := serveHTTP(t, nil)
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: 300}}
	t.Cleanup(client.CloseIdleConnections)
	stream := func() *http.Response {
		resp := s.post(t, initialize, map[string]string{"Authorization": "Bearer secret"})
		require.Equal(t, http.StatusOK, resp.StatusCode)
		id := resp.Header.Get("Mcp-Session-Id")
		require.NotEmpty(t, id)
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.srv.URL(), nil)
		req.Header.Set("Authorization", "Bearer secret")
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		got, err := client.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { got.Body.Close() })
		return got
	}
	for i := range 256 {
		require.Equal(t, http.StatusOK, stream().StatusCode, "stream %d", i)
	}
	resp := stream()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	cs, err := s.connectWith(t, "secret", true)
	require.NoError(t, err)
	_, isErr := call(t, cs, "list", map[string]any{})
	assert.False(t, isErr, "calls go on")
}

// rawConn dials the served endpoint.
func rawConn(t *testing.T, s *served) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(s.srv.URL(), "/mcp"), "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestHTTPARefusedRequestEndsItsConnection: a request without the token
// that announces a large body is answered 401 and its connection closed at
// once: nothing of the body is read, nothing keeps the connection.
func TestHTTPARefusedRequestEndsItsConnection(t *testing.T) {
	s := serveHTTP(t, nil)
	c := rawConn(t, s)
	_, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.True(t, resp.Close, "Connection: close")
	_, _ = io.Copy(io.Discard, resp.Body)
	_, err = br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the server closed the connection")
}

// TestHTTPSlowReadersNeverKeepANewClientOut: with 256 connections stalled
// in their headers, a new client's request is still answered: the
// connection reading longest is closed to make room.
func TestHTTPSlowReadersNeverKeepANewClientOut(t *testing.T) {
	s := serveHTTP(t, nil)
	stalled := make([]net.Conn, 0, 256)
	for range 256 {
		c := rawConn(t, s)
		_, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
		require.NoError(t, err)
		stalled = append(stalled, c)
	}
	for range 3 {
		resp := s.post(t, initialize, map[string]string{"Authorization": "Bearer secret"})
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}
	require.NoError(t, stalled[0].SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err := stalled[0].Read(make([]byte, 1))
	assert.Error(t, err, "the oldest stalled connection was closed")
}

// TestHTTPSlowBodiesHoldOnlyWhatTheySent: four chunked POSTs that send one
// byte and stall hold a chunk of the body budget each, not a whole
// maxMessageBytes: a small request goes on at once.
func TestHTTPSlowBodiesHoldOnlyWhatTheySent(t *testing.T) {
	s := serveHTTP(t, nil)
	for range 8 {
		c := rawConn(t, s)
		_, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer secret\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n")
		require.NoError(t, err)
	}
	done := make(chan int, 1)
	go func() {
		resp := s.post(t, initialize, map[string]string{"Authorization": "Bearer secret"})
		done <- resp.StatusCode
	}()
	select {
	case code := <-done:
		assert.Equal(t, http.StatusOK, code)
	case <-time.After(10 * time.Second):
		t.Fatal("a small request waited behind stalled bodies")
	}
}
