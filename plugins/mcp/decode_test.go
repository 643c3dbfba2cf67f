package mcp

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var decodeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"file_path":"a"}}}`,
	`{"jsonrpc":"2.0","id":"abc","method":"tools/list"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
	`{"jsonrpc":"2.0","id":-7,"method":"ping","params":{}}`,
	`{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}`,
	`{"jsonrpc":"2.0","ID":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","id":2}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"} {"x":1}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","arguments":{"content":"\u00e9\n\t<&>"}}}`,
	`{"jsonrpc":"2.0" , "id" : 1 , "method" : "ping" , "params" : [ 1 , 2 ] }`,
	`[]`, `42`, `{}`, `{"jsonrpc":"2.0"}`,
}

// Whenever decodeRequest takes a line, it returns what the SDK's decoder
// returns for it.
func TestDecodeRequestAgreesWithTheSDK(t *testing.T) {
	taken := 0
	for _, line := range decodeSeeds {
		if checkDecode(t, []byte(line)) {
			taken++
		}
	}
	assert.GreaterOrEqual(t, taken, 7, "the ordinary requests are taken")
}

func FuzzDecodeRequest(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) { checkDecode(t, []byte(line)) })
}

func checkDecode(t *testing.T, line []byte) bool {
	t.Helper()
	req, ok := decodeRequest(line)
	if !ok {
		return false
	}
	want, err := jsonrpc.DecodeMessage(line)
	require.NoError(t, err, "%s", line)
	wreq, isReq := want.(*jsonrpc.Request)
	require.True(t, isReq, "%s", line)
	assert.Equal(t, wreq.Method, req.Method, "%s", line)
	assert.Equal(t, wreq.ID, req.ID, "%s", line)
	assert.Equal(t, string(wreq.Params), string(req.Params), "%s", line)
	return true
}
