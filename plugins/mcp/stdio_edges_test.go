package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdioAnswersEveryMalformedLine: the framing cases a tester found
// (issue 12): several values on one line, non-integer and null ids, a deep
// nesting, a second initialize; each is answered and the session goes on.
func TestStdioAnswersEveryMalformedLine(t *testing.T) {
	s := newStack(t)
	rs := newRawSession(t, s, 0)
	rs.initialize(t)
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	for _, tc := range []struct {
		line string
		code float64
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}{"jsonrpc":"2.0","id":3,"method":"ping"}`, -32700},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"} garbage`, -32700},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`, -32700},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":4,"method":"ping","params":` + deep + `}`, -32600},
	} {
		rs.send(t, tc.line+"\n")
		code, msg := errorOf(t, rs.next(t))
		assert.Equal(t, tc.code, code, "%.60s: %s", tc.line, msg)
	}

	rs.send(t, `{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	m := rs.next(t)
	assert.Equal(t, "again", m["id"])
	e, ok := m["error"].(map[string]any)
	require.True(t, ok, "%v", m)
	assert.Equal(t, float64(-32600), e["code"])
	assert.Equal(t, "invalid request: the session is already initialized", e["message"])

	rs.send(t, `{"jsonrpc":"2.0","id":-7,"method":"ping"}`+"\n")
	assert.Equal(t, float64(-7), rs.next(t)["id"], "integer ids, negative too, still work")
}

// TestStdioLineEndingsCountAlike: a message of exactly MaxMessageBytes is
// accepted whether the line ends in LF or CRLF; one byte more is refused.
func TestStdioLineEndingsCountAlike(t *testing.T) {
	s := newStack(t)
	const limit = 200
	rs := newRawSession(t, s, limit)
	rs.initialize(t)
	ping := `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":{"p":"`
	msg := ping + strings.Repeat("x", limit-len(ping)-4) + `"}}}`
	require.Len(t, msg, limit)
	for _, end := range []string{"\n", "\r\n"} {
		rs.send(t, msg+end)
		m := rs.next(t)
		assert.Equal(t, float64(9), m["id"], "%q: %v", end, m)
		assert.NotContains(t, m, "error", "%q", end)
	}
	rs.send(t, ping+strings.Repeat("x", limit-len(ping)-3)+`"}}}`+"\r\n")
	code, _ := errorOf(t, rs.next(t))
	assert.Equal(t, float64(-32600), code)
}

// TestAModernRequestOnALegacyStdioSessionIsNotThatSession: a 2026-07-28
// request on a stdio process that began a legacy session takes its
// conversation from its handle or its principal, never from the process
// (conversations.md §4.1): the session's read does not let it edit.
func TestAModernRequestOnALegacyStdioSessionIsNotThatSession(t *testing.T) {
	s := newStack(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "m.txt"), []byte("one\n"), 0o644))
	rs := newRawSession(t, s, 0)
	rs.initialize(t)
	rs.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"file_path":"m.txt"}}}`+"\n")
	require.NotNil(t, rs.next(t)["result"])
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	rs.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{`+meta+`,"name":"edit","arguments":{"file_path":"m.txt","old_string":"one","new_string":"two"}}}`+"\n")
	res := rs.next(t)["result"].(map[string]any)
	assert.Equal(t, true, res["isError"], "%v", res)
	rs.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"edit","arguments":{"file_path":"m.txt","old_string":"one","new_string":"two"}}}`+"\n")
	res = rs.next(t)["result"].(map[string]any)
	assert.Nil(t, res["isError"], "the session's own edit is allowed: %v", res)
}
