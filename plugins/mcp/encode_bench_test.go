package mcp

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-go/dsh/plugins/tools"
)

// readText is the text of a warm read of a 2,000-line file capped at
// readMaxBytes: about 51 KB of numbered lines.
func readText() string {
	var b strings.Builder
	for i := 1; b.Len() < 51000; i++ {
		b.WriteString(strconv.Itoa(i) + ": line " + strconv.Itoa(i) + " abcdefghijabcdefghij\n")
	}
	return b.String()
}

// BenchmarkResultEncoding measures what the go-sdk's encoding of a lean
// tools/call result costs (the issue 10 note): the SDK marshals the
// CallToolResult (the text content's own MarshalJSON output compacted once
// inside it), then marshals that again into the response's raw result
// (compacted a second time), then the transport encodes the JSON-RPC
// envelope (a third). "text-once" is the floor: the text encoded as one JSON
// string, no compaction. Run with
//
//	go test -run XXX -bench ResultEncoding -benchmem ./mcpserver
func BenchmarkResultEncoding(b *testing.B) {
	text := readText()
	res := toMCP(tools.Result{Content: []tools.Block{tools.TextBlock(text)},
		Summary: map[string]any{"path": "/w/read2000.txt", "offset": 1, "endLine": 1520, "totalLines": 2000, "capped": true}})
	id, err := jsonrpc.MakeID(float64(7))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sdk-path", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			raw, err := json.Marshal(res) // jsonrpc2's marshalToRaw
			if err != nil {
				b.Fatal(err)
			}
			if _, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: raw}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("result-only", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("text-once", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if _, err := json.Marshal(text); err != nil {
				b.Fatal(err)
			}
		}
	})
	_ = mcp.CallToolResult{}
}
