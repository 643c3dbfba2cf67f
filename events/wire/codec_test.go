package wire_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// codec resolves real paths from a table, as a provider would.
func codec(real map[string]string) *wire.Codec {
	return &wire.Codec{Workspace: "/real/w", RealPath: func(t fsapi.Target) (string, bool) {
		r, ok := real[t.DisplayPath]
		return r, ok
	}}
}

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := wire.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestTargetsCarryKeyAndRelAgainstTheWorkspacesRealPath(t *testing.T) {
	c := codec(map[string]string{
		"/link/w/src/a.go":  "/real/w/src/a.go", // the workspace reached through a symlink
		"/link/w/.env":      "/real/w/.env",
		"/link/w/out.txt":   "/elsewhere/out.txt", // a symlink out of the workspace
		"/link/w/wide.txt":  "/real/wide.txt",     // a sibling that shares the prefix
		"/link/w/weird.txt": "/real/w",
	})
	for display, want := range map[string]string{
		"/link/w/src/a.go":  `{"path":"/link/w/src/a.go","key":"/real/w/src/a.go","rel":"src/a.go"}`,
		"/link/w/.env":      `{"path":"/link/w/.env","key":"/real/w/.env","rel":".env"}`,
		"/link/w/out.txt":   `{"path":"/link/w/out.txt","key":"/elsewhere/out.txt","rel":null}`,
		"/link/w/wide.txt":  `{"path":"/link/w/wide.txt","key":"/real/wide.txt","rel":null}`,
		"/link/w/weird.txt": `{"path":"/link/w/weird.txt","key":"/real/w","rel":"."}`,
		"/unknown":          `{"path":"/unknown","key":null,"rel":null}`,
	} {
		assert.Equal(t, want, encode(t, c.Target(fsapi.Target{Key: "opaque", DisplayPath: display})), display)
	}
	var zero wire.Codec
	assert.Equal(t, `{"path":"/p","key":null,"rel":null}`, encode(t, zero.Target(fsapi.Target{Key: "k", DisplayPath: "/p"})), "no provider: no key")
	root := wire.Codec{Workspace: "/", RealPath: func(fsapi.Target) (string, bool) { return "/etc/hosts", true }}
	assert.Equal(t, `{"path":"/p","key":"/etc/hosts","rel":"etc/hosts"}`, encode(t, root.Target(fsapi.Target{DisplayPath: "/p"})))
}

func TestIntentsCarryTheActorAndTheArguments(t *testing.T) {
	c := codec(map[string]string{"/w/a.txt": "/real/w/a.txt"})
	exec := &tools.Exec{CallID: "call-1", Tool: "write", Conv: &tools.Conversation{ID: "stdio/c/t1", Principal: "stdio"}}
	req := events.IntentRequest{Target: fsapi.Target{Key: "k", DisplayPath: "/w/a.txt"}, Actor: exec,
		Arguments: map[string]any{"file_path": "a.txt", "content": "<b>&</b>\n"}}
	assert.Equal(t, `{"target":{"path":"/w/a.txt","key":"/real/w/a.txt","rel":"a.txt"},`+
		`"actor":{"conversation":"stdio/c/t1","principal":"stdio","tool":"write","call":"call-1"},`+
		`"arguments":{"content":"<b>&</b>\n","file_path":"a.txt"}}`, encode(t, c.Intent(req)), "no HTML escaping")

	req.Actor = &tools.Exec{CallID: "call-2", Tool: "edit"}
	req.Arguments = nil
	assert.Equal(t, `{"target":{"path":"/w/a.txt","key":"/real/w/a.txt","rel":"a.txt"},`+
		`"actor":{"conversation":null,"principal":"","tool":"edit","call":"call-2"},"arguments":null}`, encode(t, c.Intent(req)),
		"a call outside any conversation; no arguments")
	req.Actor = nil
	assert.Contains(t, encode(t, c.Intent(req)), `"actor":null`)
	assert.NotContains(t, encode(t, c.Intent(req)), `"type"`, "write and edit intents carry no type")

	req.Type = fsapi.TypeDirectory
	assert.Equal(t, `{"target":{"path":"/w/a.txt","key":"/real/w/a.txt","rel":"a.txt"},"actor":null,"arguments":null,"type":"directory"}`,
		encode(t, c.Intent(req)), "fs/remove-intent carries the target's type")
}

func TestArgumentsPastTheBoundAreOmitted(t *testing.T) {
	c := &wire.Codec{MaxArgumentBytes: 64}
	fits := map[string]any{"content": strings.Repeat("x", 40)}
	in := c.Intent(events.IntentRequest{Target: fsapi.Target{DisplayPath: "/a"}, Arguments: fits})
	assert.JSONEq(t, `{"content":"`+strings.Repeat("x", 40)+`"}`, string(in.Arguments))
	assert.False(t, in.ArgumentsOmitted)

	for name, args := range map[string]map[string]any{
		"the strings alone are past it": {"content": strings.Repeat("x", 65)},
		"the JSON is past it":           {"content": strings.Repeat("\x01", 20)}, // each byte escapes to 6
		"nested":                        {"a": []any{map[string]any{"b": strings.Repeat("y", 70)}}},
	} {
		in := c.Intent(events.IntentRequest{Target: fsapi.Target{DisplayPath: "/a"}, Arguments: args})
		assert.Nil(t, in.Arguments, name)
		assert.True(t, in.ArgumentsOmitted, name)
		assert.Contains(t, encode(t, in), `"arguments":null,"argumentsOmitted":true`, name)
	}
	assert.Equal(t, 1<<20, wire.DefaultMaxArgumentBytes)
}

func TestObservationsAndClosures(t *testing.T) {
	c := codec(map[string]string{"/w/a.txt": "/real/w/a.txt"})
	exec := &tools.Exec{CallID: "c9", Tool: "read", Conv: &tools.Conversation{ID: "cli/call/x", Principal: "cli"}}
	o := events.Observation{Target: fsapi.Target{DisplayPath: "/w/a.txt"}, Kind: events.Present, Version: "1:2:3", Actor: exec}
	assert.Equal(t, `{"target":{"path":"/w/a.txt","key":"/real/w/a.txt","rel":"a.txt"},"kind":"present","version":"1:2:3",`+
		`"actor":{"conversation":"cli/call/x","principal":"cli","tool":"read","call":"c9"}}`, encode(t, c.Observed(o)))
	o.Kind, o.Version = events.Absent, ""
	assert.Contains(t, encode(t, c.Observed(o)), `"kind":"absent","version":null`)
	assert.Equal(t, `{"conversation":"stdio/s/1"}`, encode(t, wire.Closed{Conversation: "stdio/s/1"}))
	assert.Equal(t, `{"name":"shout","arguments":{"text":"hi"},"actor":null}`,
		encode(t, wire.ToolCall{Name: "shout", Arguments: json.RawMessage(`{"text":"hi"}`)}))
}
