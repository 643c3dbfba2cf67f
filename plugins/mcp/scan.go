package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The request line of an ordinary call is read by a small scanner rather
// than by encoding/json (issue 10): decoding the envelope into a map, then
// the params into another, took about 25 µs of a no-op call's 90 µs here.
// The scanner reads only the plain shape every client sends: keys without
// escapes, each at most once, nesting at most maxScanDepth deep. For any
// other line it declines, and the encoding/json path reads the line as
// before (decode_test.go holds the two equal, and to the SDK's decoder).

// maxScanDepth bounds the nesting the scanner follows; deeper lines go to
// the encoding/json path, which applies the SDK's bound.
const maxScanDepth = 64

// scanRequest reads line as a request of the plain shape: an object with
// only the members jsonrpc ("2.0"), id (a plain string or an integer),
// method (a plain non-empty string) and params (not null), each at most
// once, nothing after it but white space. ok is false for anything else.
// The request's Params share line's bytes (a line is never reused).
func scanRequest(line []byte) (req *jsonrpc.Request, ok bool) {
	m, extra, ok := scanMembers(line, "jsonrpc", "id", "method", "params")
	version, id, method, params := m[0], m[1], m[2], m[3]
	if !ok || extra || string(version) != `"2.0"` {
		return nil, false
	}
	name, ok := plainString(method)
	if !ok || name == "" || string(params) == "null" {
		return nil, false
	}
	var rid jsonrpc.ID
	if id != nil {
		if rid, ok = plainID(id); !ok {
			return nil, false
		}
	}
	return &jsonrpc.Request{ID: rid, Method: name, Params: json.RawMessage(params)}, true
}

// scanCallParams reads tools/call params of the plain shape: an object
// with a plain string name, arguments and a _meta object, each at most
// once, whose keys are all plain and none a per-request protocol field
// (`io.modelcontextprotocol/...`). decided is false when the shape is not
// plain (plainCallParams then reads it with encoding/json); else ok says
// whether the direct path may take the call.
func scanCallParams(raw []byte) (name string, args json.RawMessage, ok, decided bool) {
	m, extra, plain := scanMembers(raw, "name", "arguments", "_meta")
	nameRaw, argsRaw, metaRaw := m[0], m[1], m[2]
	switch {
	case !plain:
		return "", nil, false, false
	case extra:
		return "", nil, false, true // another member: the SDK's request
	}
	if metaRaw != nil && string(metaRaw) != "null" { // null reads as no _meta
		if metaRaw[0] != '{' {
			return "", nil, false, true // the SDK refuses it
		}
		protocol := false
		if _, plainMeta := scanObject(metaRaw, 0, 0, func(key, _ []byte) bool {
			protocol = protocol || sdkMeta(string(key))
			return true
		}); !plainMeta {
			return "", nil, false, false
		}
		if protocol {
			return "", nil, false, true
		}
	}
	if nameRaw == nil {
		return "", argsRaw, false, true
	}
	n, plainName := plainString(nameRaw)
	if !plainName {
		return "", nil, false, false
	}
	return n, argsRaw, n != "", true
}

// scanMembers reads b as one object (white space around it, nothing else)
// and returns the values of its members named keys (at most four), in
// keys' order, nil for those it lacks; extra says it has another member.
// ok is false when b is not such an object of the plain shape or a key
// repeats (encoding/json would keep the last).
func scanMembers(b []byte, keys ...string) (values [4][]byte, extra, ok bool) {
	seen := 0
	end, ok := scanObject(b, skipSpace(b, 0), 0, func(key, value []byte) bool {
		bit := len(keys) // any other key
		for i, k := range keys {
			if string(key) == k {
				bit = i
				break
			}
		}
		if seen&(1<<bit) != 0 {
			return false
		}
		seen |= 1 << bit
		if bit < len(keys) {
			values[bit] = value
		} else {
			extra = true
		}
		return true
	})
	if !ok || skipSpace(b, end) != len(b) {
		return values, false, false
	}
	return values, extra, true
}

// scanObject reads the JSON object at b[i:] and calls member with each
// member's key (plain: no escapes) and value (its exact bytes, valid JSON),
// in order, and returns the index after the object. ok is false when b[i:]
// does not start with a valid object, a key has an escape, nesting passes
// maxScanDepth, or member returns false.
func scanObject(b []byte, i, depth int, member func(key, value []byte) bool) (end int, ok bool) {
	if i >= len(b) || b[i] != '{' || depth >= maxScanDepth {
		return 0, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		close := bytes.IndexByte(b[i+1:], '"')
		if close < 0 {
			return 0, false
		}
		key := b[i+1 : i+1+close]
		for _, c := range key {
			if c < 0x20 || c == '\\' {
				return 0, false
			}
		}
		i = skipSpace(b, i+2+close)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		start := skipSpace(b, i+1)
		vend, ok := skipValue(b, start, depth+1)
		if !ok || !member(key, b[start:vend]) {
			return 0, false
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// skipValue returns the index after the valid JSON value at b[i:], depth
// levels deep; ok is false when there is none.
func skipValue(b []byte, i, depth int) (end int, ok bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '{':
		return scanObject(b, i, depth, func(_, _ []byte) bool { return true })
	case c == '[':
		if depth >= maxScanDepth {
			return 0, false
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			if i, ok = skipValue(b, i, depth+1); !ok {
				return 0, false
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
			case ']':
				return i + 1, true
			default:
				return 0, false
			}
		}
	case c == '"':
		return skipString(b, i)
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	case bytes.HasPrefix(b[i:], []byte("true")):
		return i + 4, true
	case bytes.HasPrefix(b[i:], []byte("false")):
		return i + 5, true
	case bytes.HasPrefix(b[i:], []byte("null")):
		return i + 4, true
	}
	return 0, false
}

// skipString returns the index after the JSON string at b[i:] (b[i] is its
// quote): no control characters, only JSON's escapes. Invalid UTF-8 passes,
// as encoding/json lets it pass.
func skipString(b []byte, i int) (end int, ok bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return 0, false
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return 0, false
					}
				}
				i += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

// skipNumber returns the index after the JSON number at b[i:]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) (end int, ok bool) {
	digits := func(i int) (int, bool) {
		j := i
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j, j > i
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i, _ = digits(i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		if i, ok = digits(i + 1); !ok {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i, ok = digits(i); !ok {
			return 0, false
		}
	}
	return i, true
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
