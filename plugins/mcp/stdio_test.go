package mcp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// rawSession is a StdioTransport session driven line by line.
type rawSession struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
	last []byte // the line next read last
}

func newRawSession(t *testing.T, s *stack, maxBytes int) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	rs := &rawSession{in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	go func() {
		rs.done <- s.srv.Run(t.Context(), &mcpserver.StdioTransport{Reader: inR, Writer: outW, MaxMessageBytes: maxBytes})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return rs
}

func (rs *rawSession) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(rs.in, line)
	require.NoError(t, err)
}

// next returns the next reply, decoded.
func (rs *rawSession) next(t *testing.T) map[string]any {
	t.Helper()
	type reply struct {
		line []byte
		err  error
	}
	got := make(chan reply, 1)
	go func() {
		l, err := rs.out.ReadBytes('\n')
		got <- reply{l, err}
	}()
	select {
	case r := <-got:
		require.NoError(t, r.err)
		rs.last = r.line
		var m map[string]any
		require.NoError(t, json.Unmarshal(r.line, &m), "%s", r.line)
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no reply within 10 s")
		return nil
	}
}

func (rs *rawSession) initialize(t *testing.T) {
	t.Helper()
	rs.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	require.NotNil(t, rs.next(t)["result"])
	rs.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
}

func errorOf(t *testing.T, m map[string]any) (code float64, message string) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	require.True(t, ok, "an error reply: %v", m)
	assert.Contains(t, m, "id")
	assert.Nil(t, m["id"], "id null")
	return e["code"].(float64), e["message"].(string)
}

// TestStdioAnswersBadLinesAndGoesOn: a line that is not a JSON-RPC message
// gets an error reply with id null, and the session continues (issue 12,
// robust stdio framing).
func TestStdioAnswersBadLinesAndGoesOn(t *testing.T) {
	s := newStack(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "a.txt"), []byte("hello\n"), 0o644))
	rs := newRawSession(t, s, 0)
	rs.initialize(t)

	for _, tc := range []struct {
		line string
		code float64
	}{
		{"this is not json", -32700},
		{`{"jsonrpc":"2.0","id":`, -32700},
		{"42", -32600},
		{"[]", -32600},
		{`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600},
		{"{}", -32600},
	} {
		rs.send(t, tc.line+"\n")
		code, msg := errorOf(t, rs.next(t))
		assert.Equal(t, tc.code, code, "%s: %s", tc.line, msg)
	}
	rs.send(t, "\n  \r\n") // blank lines are skipped, not answered

	rs.send(t, `{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"read","arguments":{"file_path":"a.txt"}}}`+"\n")
	m := rs.next(t)
	assert.Equal(t, "r1", m["id"])
	res := m["result"].(map[string]any)
	assert.Equal(t, "<path>"+s.W+"/a.txt</path>\n<type>file</type>\n<content>\n1: hello\n\n(End of file - total 1 lines)\n</content>",
		res["content"].([]any)[0].(map[string]any)["text"])
}

// TestStdioDiscardsAnOversizedLine: a line over MaxMessageBytes is dropped
// up to its newline and answered; the next message is read normally.
func TestStdioDiscardsAnOversizedLine(t *testing.T) {
	s := newStack(t)
	rs := newRawSession(t, s, 1024)
	rs.initialize(t)
	rs.send(t, `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"`+strings.Repeat("x", 100_000)+`"}}`+"\n")
	code, msg := errorOf(t, rs.next(t))
	assert.Equal(t, -32600.0, code)
	assert.Equal(t, "invalid request: message longer than 1024 bytes", msg)

	rs.send(t, `{"jsonrpc":"2.0","id":8,"method":"ping"}`+"\n")
	m := rs.next(t)
	assert.Equal(t, 8.0, m["id"])
	assert.NotNil(t, m["result"])
}

// TestStdioEndsCleanlyAtEOF: the end of input ends the session without
// error. (A last line without a newline is read, as TestReadLine shows, but
// the SDK stops answering once its input has ended.)
func TestStdioEndsCleanlyAtEOF(t *testing.T) {
	s := newStack(t)
	rs := newRawSession(t, s, 0)
	rs.initialize(t)
	rs.send(t, `{"jsonrpc":"2.0","id":9,"method":"ping"}`+"\n")
	m := rs.next(t)
	assert.Equal(t, 9.0, m["id"])
	require.NoError(t, rs.in.Close())
	select {
	case err := <-rs.done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end at EOF")
	}
}
