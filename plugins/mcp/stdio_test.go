package mcp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// rawStdio is one stdio session driven line by line.
type rawStdio struct {
	in  *io.PipeWriter
	out *bufio.Scanner
}

func connectStdio(t *testing.T, max int64) *rawStdio {
	t.Helper()
	s := newStack(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := s.srv.MCP().Connect(t.Context(), &mcpserver.StdioTransport{Reader: inR, Writer: outW, MaxMessageBytes: max}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { inW.Close(); ss.Close(); outR.Close() })
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	return &rawStdio{in: inW, out: sc}
}

func (r *rawStdio) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(r.in, line+"\n")
	require.NoError(t, err)
}

func (r *rawStdio) reply(t *testing.T) map[string]any {
	t.Helper()
	got := make(chan map[string]any, 1)
	go func() {
		if !r.out.Scan() {
			got <- nil
			return
		}
		var m map[string]any
		_ = json.Unmarshal(r.out.Bytes(), &m)
		got <- m
	}()
	select {
	case m := <-got:
		require.NotNil(t, m, "a reply line")
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no reply")
		return nil
	}
}

// TestStdioAnswersBadLinesAndGoesOn: lines that are not JSON-RPC are
// answered with -32700 / -32600 (id null), an oversized frame is dropped up
// to its newline and answered, and the session keeps working.
func TestStdioAnswersBadLinesAndGoesOn(t *testing.T) {
	r := connectStdio(t, 4096)
	r.send(t, initialize)
	assert.Equal(t, float64(1), r.reply(t)["id"])
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for _, tc := range []struct {
		line string
		code float64
	}{
		{"this is not json", -32700},
		{`{"jsonrpc":"2.0","id":`, -32700},
		{"42", -32600},
		{"[]", -32600},
		{`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, -32600},
	} {
		r.send(t, tc.line)
		m := r.reply(t)
		assert.Contains(t, m, "id")
		assert.Nil(t, m["id"], "id null for %.20q", tc.line)
		e, _ := m["error"].(map[string]any)
		require.NotNil(t, e, "an error reply for %.20q", tc.line)
		assert.Equal(t, tc.code, e["code"], "%.20q", tc.line)
	}
	r.send(t, "")
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	m := r.reply(t)
	assert.Equal(t, float64(2), m["id"])
	res, _ := m["result"].(map[string]any)
	require.NotNil(t, res, "the session still answers: %v", m)
	assert.Len(t, res["tools"], 4)
}

// TestStdioDiscardsAnOversizedFrameWithoutHoldingIt: a 16 MiB line over a
// 1 MiB limit is read through and answered; the next message works.
func TestStdioDiscardsAnOversizedFrameWithoutHoldingIt(t *testing.T) {
	r := connectStdio(t, 1<<20)
	go func() {
		_, _ = io.WriteString(r.in, `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"`+strings.Repeat("y", 16<<20)+"\"}}\n")
		_, _ = io.WriteString(r.in, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	}()
	m := r.reply(t)
	assert.Nil(t, m["id"])
	assert.Equal(t, "Invalid Request: message over 1048576 bytes discarded", m["error"].(map[string]any)["message"])
	m = r.reply(t)
	assert.Equal(t, float64(1), m["id"], "ping answered: %v", m)
}

// TestStdioEOFEndsTheSession: the transport's end is the session's.
func TestStdioEOFEndsTheSession(t *testing.T) {
	s := newStack(t)
	inR, inW := io.Pipe()
	ss, err := s.srv.MCP().Connect(t.Context(), &mcpserver.StdioTransport{Reader: inR, Writer: io.Discard}, nil)
	require.NoError(t, err)
	require.NoError(t, inW.Close())
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("EOF did not end the session")
	}
}
