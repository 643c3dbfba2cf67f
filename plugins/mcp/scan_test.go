package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var scanSeeds = append(append([]string{}, decodeSeeds...),
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"a":[1,-2.5e+3,true,false,null,{"b":"\"\\\/\b\f\n\r\t\u00e9"}],"c":{}}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"a":01}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"a":1.}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"a":"\x"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"a":"`+"\x01"+`"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"a":"\ud83d"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"a":tru}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"a":[1,]}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"a":1,}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"a":"`+"\xff\xfe"+`"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","name":"list"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"read"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","_meta":{"io.modelcontextprotocol/x":1}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","_meta":{"a":1,"a":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","_meta":[]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"re\"ad"}}`,
	`{"j\u0073onrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}  `,
	`  {"jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}x`,
	`{"jsonrpc":"2.0","id":1,"method":"ping",}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":`+strings.Repeat("[", 70)+strings.Repeat("]", 70)+`}`,
	`{"jsonrpc":"2.0","id":"`+strings.Repeat("x", 300)+`","method":"ping"}`,
	// Over a thousand brackets, all inside a string (a source file's
	// content): encoding/json's path refuses the line on the count alone.
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write","arguments":{"content":"`+strings.Repeat("{", 1001)+`"}}}`,
)

// Whatever the scanner reads, it reads as the encoding/json path does.
func TestScanRequestAgreesWithEncodingJSON(t *testing.T) {
	scanned := 0
	for _, line := range scanSeeds {
		if checkScan(t, []byte(line)) {
			scanned++
		}
	}
	assert.GreaterOrEqual(t, scanned, 10, "the plain requests are scanned")
}

func FuzzScanRequest(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) { checkScan(t, []byte(line)) })
}

// checkScan compares the scanner with the encoding/json path on line, and
// on its params as a tools/call's: what the scanner decides must be what
// encoding/json decides. The one line the encoding/json path refuses and
// the scanner may take is one of over a thousand brackets (its cheap guard
// for the SDK's nesting bound, which counts those inside strings too) that
// nests no deeper than maxScanDepth; the SDK's decoder, which reads such a
// line, must then read it as the scanner does (checkDecode).
func checkScan(t *testing.T, line []byte) bool {
	t.Helper()
	req, ok := scanRequest(line)
	if ok {
		want, wok := decodeRequestJSON(line)
		if !wok {
			require.Greater(t, bytes.Count(line, []byte{'{'})+bytes.Count(line, []byte{'['}), 1000, "scanned a line encoding/json refuses: %s", line)
			require.True(t, checkDecode(t, line), "%s", line)
			want = req
		}
		assert.Equal(t, want.ID, req.ID, "%s", line)
		assert.Equal(t, want.Method, req.Method, "%s", line)
		assert.Equal(t, string(want.Params), string(req.Params), "%s", line)
		checkCallParams(t, req.Params)
	}
	var probe struct{ Params json.RawMessage }
	if json.Unmarshal(line, &probe) == nil && probe.Params != nil {
		checkCallParams(t, probe.Params)
	}
	return ok
}

func checkCallParams(t *testing.T, params json.RawMessage) {
	t.Helper()
	name, args, ok, decided := scanCallParams(params)
	if !decided {
		return
	}
	wname, wargs, wok := plainCallParamsJSON(params)
	assert.Equal(t, wok, ok, "%s", params)
	if ok {
		assert.Equal(t, wname, name, "%s", params)
		assert.Equal(t, string(wargs), string(args), "%s", params)
	}
}
