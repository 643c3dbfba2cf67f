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

// decodeCorpus is a set of lines, plain and not, for the decoder parity.
var decodeCorpus = []string{
	`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"read","arguments":{"file_path":"a.txt"}}}`,
	`{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
	`{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping","params":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"method":"ping","id":3,"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":3,"method":"ping","params":null}`,
	`{"jsonrpc":"2.0","id":"a\u00e9","method":"ping"}`,
	`{"jsonrpc":"2.0","id":4,"method":"p\u0069ng"}`,
	`{"jsonrpc":"1.0","id":4,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":4,"method":""}`,
	`{"jsonrpc":"2.0","id":4,"method":"ping","extra":1}`,
	`{"jsonrpc":"2.0","id":4,"result":{}}`,
	`{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":4,"method":"ping","params":[1,2]}`,
	`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":[[[[[]]]]]}}`,
	`{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}`,
	`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"}}`,
	`{"jsonrpc":"2.0","id":4,"method":5}`,
	`{"jsonrpc":"2.0","id":4}`,
	`{"jsonrpc":"2.0","ID":4,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":4,"method":"ping","method":"x"}`,
}

// TestPlainRequestsDecodeAsTheSDKDecodes: for every line the SDK's decoder
// reads, decodeLine returns the same message, or the same refusal.
func TestPlainRequestsDecodeAsTheSDKDecodes(t *testing.T) {
	for _, line := range decodeCorpus {
		assertDecodesAsTheSDK(t, []byte(line))
	}
}

func assertDecodesAsTheSDK(t *testing.T, line []byte) {
	t.Helper()
	got, code, _ := decodeLine(line)
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &probe) != nil || (probe.ID != nil && checkID(probe.ID) != "") {
		return // refused before any decoder: the framing's own answers
	}
	want, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		assert.Nil(t, got, "%s: the SDK refuses it", line)
		assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), code, "%s", line)
		return
	}
	assert.Equal(t, want, got, "%s", line)
}

// FuzzDecodeLine holds decodeLine equal to the SDK's decoder on any line.
func FuzzDecodeLine(f *testing.F) {
	for _, line := range decodeCorpus {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			return
		}
		assertDecodesAsTheSDK(t, []byte(line))
	})
}
