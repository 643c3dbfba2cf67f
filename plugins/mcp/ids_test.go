package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/tools"
)

// rawReply returns the next reply's id, exactly as written, and its error
// code and message (0 and "" for a result).
func rawReply(t *testing.T, rs *rawSession) (id string, code float64, message string) {
	t.Helper()
	m := rs.next(t)
	var raw struct {
		ID json.RawMessage `json:"id"`
	}
	require.NoError(t, json.Unmarshal(rs.last, &raw)) // m's id went through a float64
	if e, ok := m["error"].(map[string]any); ok {
		return string(raw.ID), e["code"].(float64), e["message"].(string)
	}
	return string(raw.ID), 0, ""
}

// TestStdioIDsComeBackExactOrAreRefused: an id is echoed byte for byte
// when it is a string or an integer of magnitude at most 2^53−1; any other
// is refused with -32600 and id null before the SDK (which reads numbers
// as doubles) could change it.
func TestStdioIDsComeBackExactOrAreRefused(t *testing.T) {
	s := newStack(t)
	rs := newRawSession(t, s, 0)
	rs.initialize(t)
	for _, id := range []string{`9007199254740991`, `-9007199254740991`, `0`, `42`, `"s"`, `"18446744073709551615"`, `""`, `"\ufffd"`, "\"\uFFFD\""} {
		rs.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`+"\n")
		got, code, msg := rawReply(t, rs)
		if id[0] == '"' { // a string comes back as the same string (its escapes may differ)
			var want, have string
			require.NoError(t, json.Unmarshal([]byte(id), &want))
			require.NoError(t, json.Unmarshal([]byte(got), &have))
			assert.Equal(t, want, have, "echoed exactly")
		} else {
			assert.Equal(t, id, got, "echoed exactly")
		}
		assert.Zero(t, code, msg)
	}
	beyond := " is beyond ±9007199254740991 (2^53−1), the integers every JSON peer reads exactly"
	for _, tc := range []struct{ id, why string }{
		{`9007199254740992`, `9007199254740992` + beyond},
		{`-9007199254740992`, `-9007199254740992` + beyond},
		{`18446744073709551615`, `18446744073709551615` + beyond},
		{`1.5`, `1.5 is not an integer`},
		{`1e3`, `1e3 is not an integer`},
		{`null`, `an id must be a string or an integer, not null`},
		{`{}`, `an id must be a string or an integer, not {}`},
		{`true`, `an id must be a string or an integer, not true`},
		{`"\ud800"`, `a string with invalid UTF-8 or a lone surrogate (read as U+FFFD) would come back changed`},
	} {
		rs.send(t, `{"jsonrpc":"2.0","id":`+tc.id+`,"method":"ping"}`+"\n")
		got, code, msg := rawReply(t, rs)
		assert.Equal(t, "null", got, tc.id)
		assert.Equal(t, float64(-32600), code, tc.id)
		assert.Equal(t, "invalid request id: "+tc.why, msg)
	}
}

// TestStdioADuplicateIDIsAnswered: a request whose id is that of one still
// in flight is answered -32600 with id null (and not run); once the first
// is answered the id is free again.
func TestStdioADuplicateIDIsAnswered(t *testing.T) {
	s := newStack(t)
	release := make(chan struct{})
	_, err := s.Registry.Register(s.Host.Root(), tools.Tool{Name: "block", Parameters: []byte(`{"type":"object","properties":{}}`),
		Execute: func(ctx context.Context, _ tools.Args, _ *tools.Exec) (any, error) {
			<-release
			return "done", nil
		}})
	require.NoError(t, err)
	rs := newRawSession(t, s, 0)
	rs.initialize(t)
	rs.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block","arguments":{}}}`+"\n")
	rs.send(t, `{"jsonrpc":"2.0","id":5,"method":"ping"}`+"\n")
	got, code, msg := rawReply(t, rs)
	assert.Equal(t, "null", got)
	assert.Equal(t, float64(-32600), code)
	assert.Equal(t, "duplicate request id: a request with this id is still in flight", msg)
	close(release)
	got, code, _ = rawReply(t, rs)
	assert.Equal(t, "5", got, "the call is answered")
	assert.Zero(t, code)
	rs.send(t, `{"jsonrpc":"2.0","id":5,"method":"ping"}`+"\n")
	got, code, _ = rawReply(t, rs)
	assert.Equal(t, "5", got, "the id is free again")
	assert.Zero(t, code)
}
