package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeRequest decodes the common line, a request with nothing unusual,
// into exactly the message jsonrpc.DecodeMessage returns for it, with
// scanRequest or else in one pass of the standard decoder: the SDK's
// decoder allocated 64 KB and took about 60 µs per message, more than a
// small tool call's own work (issue 10). ok is false for any other line,
// which decodeLine then reads as before: a key other than jsonrpc, id,
// method and params (keys compare exactly, as the SDK's do), a version
// other than "2.0", a method that is not a plain non-empty string, an id
// that is not a plain string or an integer, null params, or (guarding the
// SDK's depth bound) more than 1,000 brackets, unless scanRequest finds
// them nested no deeper than maxScanDepth (brackets inside strings, as in
// a source file's content, count for the guard but not for the nesting).
// decode_test.go compares the two on every line it is given.
func decodeRequest(line []byte) (req *jsonrpc.Request, ok bool) {
	if req, ok := scanRequest(line); ok {
		return req, true
	}
	return decodeRequestJSON(line)
}

// decodeRequestJSON is decodeRequest with encoding/json, for the lines
// scanRequest declines.
func decodeRequestJSON(line []byte) (req *jsonrpc.Request, ok bool) {
	if bytes.Count(line, []byte{'{'})+bytes.Count(line, []byte{'['}) > 1000 {
		return nil, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(line, &fields) != nil {
		return nil, false
	}
	for key := range fields {
		switch key {
		case "jsonrpc", "id", "method", "params":
		default:
			return nil, false
		}
	}
	method, ok := plainString(fields["method"])
	if !ok || method == "" || string(fields["jsonrpc"]) != `"2.0"` {
		return nil, false
	}
	var id jsonrpc.ID
	if raw, present := fields["id"]; present {
		if id, ok = plainID(raw); !ok {
			return nil, false
		}
	}
	params := fields["params"]
	if string(params) == "null" {
		return nil, false
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: params}, true
}

// plainString returns the value of a JSON string of printable ASCII without
// escapes, the strings every decoder reads alike.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	for _, b := range s {
		if b < 0x20 || b == '"' || b == '\\' || b >= utf8.RuneSelf {
			return "", false
		}
	}
	return string(s), true
}

// plainID returns the id of a plain string or an integer literal, as the
// SDK makes it (a number goes through float64, as its decoder reads
// numbers into an any).
func plainID(raw json.RawMessage) (jsonrpc.ID, bool) {
	if s, ok := plainString(raw); ok {
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	}
	if !validID(raw) || raw[0] == '"' {
		return jsonrpc.ID{}, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(f)
	return id, err == nil
}
