package wire_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
)

func TestDecisions(t *testing.T) {
	deny, err := wire.ParseDecision("g", json.RawMessage(`{"decision":"next","extra":[1]}`))
	assert.NoError(t, err)
	assert.Nil(t, deny, "next; unknown members are ignored")

	for raw, want := range map[string]wire.Denied{
		`{"decision":"deny","message":"no","code":"NO_WAY"}`:    {Plugin: "g", Message: "no", Code: "NO_WAY"},
		`{"decision":"deny","message":"no"}`:                    {Plugin: "g", Message: "no", Code: "PLUGIN_DENIED"},
		`{"decision":"deny","message":"no","code":"lower"}`:     {Plugin: "g", Message: "no", Code: "PLUGIN_DENIED"},
		`{"decision":"deny","message":"no","code":"A"}`:         {Plugin: "g", Message: "no", Code: "PLUGIN_DENIED"},
		`{"decision":"deny"}`:                                   {Plugin: "g", Message: `denied by plugin "g"`, Code: "PLUGIN_DENIED"},
		`{"decision":"deny","message":"x","code":"A1_B2_C3"}`:   {Plugin: "g", Message: "x", Code: "A1_B2_C3"},
		` {"decision":"deny","message":"x","code":"AB"}` + "\n": {Plugin: "g", Message: "x", Code: "AB"},
	} {
		deny, err := wire.ParseDecision("g", json.RawMessage(raw))
		require.NoError(t, err, raw)
		assert.Equal(t, &want, deny, raw)
	}
	d := wire.NewDenied("g", "no", "NO_WAY")
	assert.Equal(t, "no", d.Error())
	assert.Equal(t, "PluginError", d.ErrorName())
	assert.Equal(t, "NO_WAY", d.ErrorCode())

	for raw, want := range map[string]string{
		`not json`:                         `broken answer: not a decision object: "not json"`,
		`[]`:                               `broken answer: not a decision object: "[]"`,
		`null`:                             `broken answer: not a decision object: "null"`,
		`{"decision":"maybe"}`:             `broken answer: unknown decision "maybe"`,
		`{}`:                               `broken answer: unknown decision ""`,
		`{"decision":1}`:                   `broken answer: not a decision object: "{\"decision\":1}"`,
		`{"decision":"deny","message":{}}`: `broken answer: not a decision object: "{\"decision\":\"deny\",\"message\":{}}"`,
	} {
		_, err := wire.ParseDecision("g", json.RawMessage(raw))
		assert.EqualError(t, err, want, raw)
	}
	long := `["` + strings.Repeat("x", 100) + `"]`
	_, err = wire.ParseDecision("g", json.RawMessage(long))
	assert.EqualError(t, err, `broken answer: not a decision object: "[\"`+strings.Repeat("x", 62)+`"...`, "a long answer is cut in the message")
}

func TestToolResults(t *testing.T) {
	r, err := wire.ParseToolResult(json.RawMessage(`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":false}`))
	require.NoError(t, err)
	assert.Equal(t, "ab", r.Text())
	r, err = wire.ParseToolResult(json.RawMessage(`{"content":[{"type":"text","text":"bad"}],"isError":true,"code":"E_X"}`))
	require.NoError(t, err)
	assert.Equal(t, wire.ToolResult{Content: []wire.Content{{Type: "text", Text: "bad"}}, IsError: true, Code: "E_X"}, r)
	for raw, want := range map[string]string{
		`{"isError":false}`:                         "broken answer: a tool result needs content",
		`{"content":[{"type":"image","data":"x"}]}`: "broken answer: content[0] is not a text block",
		`"text"`: `broken answer: not a tool result object: "\"text\""`,
	} {
		_, err := wire.ParseToolResult(json.RawMessage(raw))
		assert.EqualError(t, err, want, raw)
	}
}

func TestFailures(t *testing.T) {
	u := &wire.Unavailable{Plugin: "no-secrets", Cause: "no answer within 2s"}
	assert.Equal(t, `plugin "no-secrets" is unavailable: no answer within 2s`, u.Error())
	assert.Equal(t, "PLUGIN_UNAVAILABLE", u.ErrorCode())
	assert.Equal(t, "PluginError", u.ErrorName())
	assert.True(t, wire.Block.Valid())
	assert.True(t, wire.Allow.Valid())
	assert.False(t, wire.OnFailure("warn").Valid())
	assert.Equal(t, u, wire.Block.Fail(discard, "no-secrets", "fs/write-intent", "no answer within 2s"))
	assert.NoError(t, wire.Allow.Fail(discard, "no-secrets", "fs/write-intent", "no answer within 2s"))
	for code, ok := range map[string]bool{"AB": true, "A_1": true, "A": false, "1A": false, "A-B": false, "": false,
		"A" + string(make([]byte, 63)): false, "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKL": true,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLM": false} {
		assert.Equal(t, ok, wire.ValidCode(code), code)
	}
}
