package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
	"github.com/dsh-go/dsh/plugins/tools"
)

// stalledRequest sends one raw HTTP request (its lines after the request
// line, without the final empty line) on a connection with a small receive
// buffer that it never reads.
func stalledRequest(t *testing.T, url, method, headers, body string) {
	t.Helper()
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.DialContext(t.Context(), "tcp", host)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = fmt.Fprintf(conn, "%s /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer secret\r\n%s\r\nContent-Length: %d\r\n\r\n%s",
		method, host, headers, len(body), body)
	require.NoError(t, err)
}

// stalledPost sends one 2026-07-28 tools/call of tool with a progress
// token and never reads its answer (stalledRequest).
func stalledPost(t *testing.T, url, tool string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{"progressToken":"p",`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, tool)
	stalledRequest(t, url, "POST", "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: "+tool, body)
}

// TestAClientThatStopsReadingHoldsNoCallSlot: a tool reporting progress to
// a client that never reads its stream goes on and returns (its reports
// past what the outbox holds are dropped), so the one call slot is free
// for the next client's call (conversations.md §4.3: a notification never
// holds a call).
func TestAClientThatStopsReadingHoldsNoCallSlot(t *testing.T) {
	s := serveHTTP(t, func(c *mcpserver.Config) { c.MaxInFlight, c.CallTimeout = 1, 5*time.Second })
	started, returned := make(chan struct{}), make(chan struct{})
	message := strings.Repeat("x", 64<<10)
	_, err := s.Registry.Register(s.Host.Root(), tools.Tool{Name: "flood", Parameters: json.RawMessage(`{"type":"object"}`),
		Execute: func(ctx context.Context, _ tools.Args, exec *tools.Exec) (any, error) {
			close(started)
			defer close(returned)
			for i := range 400 { // 25 MiB, past any socket buffer
				exec.Report(float64(i), 400, message)
				exec.Notify("info", message)
			}
			return "flooded", nil
		}})
	require.NoError(t, err)
	stalledPost(t, s.srv.URL(), "flood")
	<-started
	select {
	case <-returned:
	case <-time.After(30 * time.Second):
		t.Fatal("the tool is still blocked in a notification to a client that does not read")
	}
	cs, err := s.connectModern(t, "secret")
	require.NoError(t, err)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.False(t, res.IsError, "%v", res.Content)
}

// TestAnnouncementsNeverWaitForAClient: a legacy session that set a level
// and never reads its stream stalls only its own announcements: Announce
// returns at once every time, and a session that reads gets them
// (conversations.md §4.3: a reload's result).
func TestAnnouncementsNeverWaitForAClient(t *testing.T) {
	s := serveHTTP(t, nil)
	resp := s.post(t, initialize, map[string]string{"Authorization": "Bearer secret"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	legacy := map[string]string{"Authorization": "Bearer secret", "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}
	s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, legacy)
	resp = s.post(t, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`, legacy)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	stalledRequest(t, s.srv.URL(), "GET", "Accept: text/event-stream\r\nMcp-Session-Id: "+id+"\r\nMcp-Protocol-Version: 2025-06-18", "")

	got := make(chan string, 1000)
	tr := &mcp.StreamableClientTransport{Endpoint: s.srv.URL(), HTTPClient: &http.Client{Transport: stacktest.Bearer{Token: "secret", Next: http.DefaultTransport}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { got <- r.Params.Data.(string) },
	}).Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: oldProtocol})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	require.NoError(t, cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}))

	message := strings.Repeat("x", 64<<10)
	announced := make(chan struct{})
	go func() {
		defer close(announced)
		for range 400 { // 25 MiB to each session, past any socket buffer
			s.srv.Announce("info", message)
		}
	}()
	select {
	case <-announced:
	case <-time.After(30 * time.Second):
		t.Fatal("Announce is blocked on a session that does not read")
	}
	for { // the good session's outbox dropped what the flood put past its size; the next one arrives
		s.srv.Announce("warning", "config reloaded")
		select {
		case m := <-got:
			if m == "config reloaded" {
				return
			}
		case <-time.After(100 * time.Millisecond):
		case <-t.Context().Done():
			return
		}
	}
}

// TestLevelsAndProgressTokensAreMCPs: logging/setLevel to a level MCP does
// not have is -32602; a tool's message at such a level goes as "info"; a
// progress token that is neither a string nor an integer, or longer than
// 256 bytes, gets no progress (the server never echoes it).
func TestLevelsAndProgressTokensAreMCPs(t *testing.T) {
	s := newStack(t)
	_, err := s.Registry.Register(s.Host.Root(), tools.Tool{Name: "tell", Parameters: json.RawMessage(`{"type":"object"}`),
		Execute: func(_ context.Context, _ tools.Args, exec *tools.Exec) (any, error) {
			if exec.Report != nil {
				exec.Report(1, 2, "half")
			}
			exec.Notify("loud", "hello")
			return "told", nil
		}})
	require.NoError(t, err)
	var mu sync.Mutex
	var progress []any
	var levels []mcp.LoggingLevel
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.srv.MCP().Connect(t.Context(), st, nil)
	require.NoError(t, err)
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, r.Params.ProgressToken)
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			levels = append(levels, r.Params.Level)
		}}).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: oldProtocol})
	require.NoError(t, err)
	defer cs.Close()

	err = cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "loud"})
	var rpc *jsonrpc.Error
	require.True(t, errors.As(err, &rpc), "%v", err)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code)
	assert.Equal(t, `invalid log level "loud": one of debug, info, notice, warning, error, critical, alert, emergency`, rpc.Message)
	require.NoError(t, cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "debug"}))

	for _, token := range []any{strings.Repeat("t", 257), 1.5, map[string]any{"a": 1}, strings.Repeat("t", 256), 7} {
		p := &mcp.CallToolParams{Name: "tell", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": token}} // SetProgressToken refuses the bad ones
		_, err := cs.CallTool(t.Context(), p)
		require.NoError(t, err)
	}
	// The message names no slice: its arguments are read when Eventually is
	// called, while the handlers may still be appending.
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(levels) == 5 && len(progress) == 2 }, 3*time.Second, 10*time.Millisecond, "5 log messages and 2 progress notifications")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []any{strings.Repeat("t", 256), float64(7)}, progress)
	assert.Equal(t, []mcp.LoggingLevel{"info", "info", "info", "info", "info"}, levels)
}
