package mcp

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEncodeFrameSplicesTheResult: a successful response is the SDK's
// envelope with the encoded result spliced in as it is; every other message
// is the SDK's own encoding.
func TestEncodeFrameSplicesTheResult(t *testing.T) {
	for _, raw := range []any{float64(3), "abc"} {
		id, err := jsonrpc.MakeID(raw)
		require.NoError(t, err)
		resp := &jsonrpc.Response{ID: id, Result: json.RawMessage(`{"content":[{"type":"text","text":"a\nb \u003c"}],"isError":false}`)}
		frame, err := encodeFrame(resp)
		require.NoError(t, err)
		want, err := jsonrpc.EncodeMessage(resp)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(frame))
		assert.Equal(t, 1, strings.Count(string(frame), "\n"), "one line")
		assert.True(t, strings.HasSuffix(string(frame), "}\n"))
	}
	id, _ := jsonrpc.MakeID(float64(1))
	failed := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32601, Message: "no such method"}}
	frame, err := encodeFrame(failed)
	require.NoError(t, err)
	want, _ := jsonrpc.EncodeMessage(failed)
	assert.Equal(t, string(want)+"\n", string(frame))
}

func TestReadLine(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("x", 50)+"\nok\nlast"), 16)
	line, long, err := readLine(r, 10)
	assert.Equal(t, "short", string(line))
	assert.False(t, long)
	assert.NoError(t, err)
	_, long, err = readLine(r, 10)
	assert.True(t, long, "a line over the limit is reported, across several buffer fills")
	assert.NoError(t, err)
	line, long, _ = readLine(r, 10)
	assert.Equal(t, "ok", string(line), "reading goes on at the next line")
	assert.False(t, long)
	line, _, err = readLine(r, 10)
	assert.Equal(t, "last", string(line), "a final line without a newline")
	assert.ErrorContains(t, err, "EOF")
}
