package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/internal/stacktest"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// sandboxServer is the default stack with fssandbox {read-only,
// sessionSwitch} behind one MCP server (sandbox.md X-E10).
func sandboxServer(t *testing.T) (*stacktest.Stack, *mcpserver.Server) {
	t.Helper()
	st := stacktest.New(t, stacktest.Options{FSSandbox: map[string]any{"mode": "read-only", "sessionSwitch": true}})
	srv, err := mcpserver.New(st.Host.Root(), st.Registry, mcpserver.Options{Name: "test", Version: "1", Cwd: func() string { return st.W }})
	require.NoError(t, err)
	return st, srv
}

// elicited is one elicitation/create the client received.
type elicited struct {
	mode, message string
	schema        string
}

// connectAsking opens a session whose client answers every elicitation
// with action (nil handler: the client has no elicitation capability),
// recording the requests; version "" is the SDK's latest protocol.
func connectAsking(t *testing.T, srv *mcpserver.Server, action string, version string) (*mcp.ClientSession, *[]elicited) {
	t.Helper()
	return connectWith(t, srv, action, version, nil)
}

// connectWith is connectAsking with the client's multi round-trip
// middleware set by mrtr (nil: the SDK's default, which answers input
// requests itself).
func connectWith(t *testing.T, srv *mcpserver.Server, action, version string, mrtr *mcp.MultiRoundTripOptions) (*mcp.ClientSession, *[]elicited) {
	t.Helper()
	var seen []elicited
	opts := &mcp.ClientOptions{MultiRoundTrip: mrtr}
	if action != "" {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			schema, err := json.Marshal(req.Params.RequestedSchema)
			require.NoError(t, err)
			seen = append(seen, elicited{mode: req.Params.Mode, message: req.Params.Message, schema: string(schema)})
			return &mcp.ElicitResult{Action: action}, nil
		}
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(t.Context(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, opts).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs, &seen
}

const widen = "Fix the failing test in proj."

// handles names the conversation of a version's calls: a 2026-07-28
// client ("") passes a handle, since a conversation named by its principal
// alone never has an approval channel (conversations.md §3); a legacy
// session is its own conversation.
func handleFor(version, h string) string {
	if version == "" {
		return h
	}
	return ""
}

func TestApprovalOverElicitation(t *testing.T) {
	// The SDK's latest protocol asks through a multi round-trip input
	// request; older ones through a server-initiated elicitation/create.
	for _, version := range []string{"", "2025-11-25", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) {
			st, srv := sandboxServer(t)
			question := `Allow the agent to change files under "` + st.W + `" for the rest of this conversation (sandbox mode workspace-write, now read-only)? Its reason: ` + widen

			t.Run("an approved widening lets the next write land", func(t *testing.T) {
				cs, seen := connectAsking(t, srv, "accept", version)
				h := handleFor(version, "accepting")
				text, isErr := callIn(t, cs, h, "write", map[string]any{"file_path": "new.txt", "content": "x"})
				assert.True(t, isErr)
				assert.Equal(t, `Error: cannot write "`+st.W+`/new.txt": the sandbox is in read-only mode — to proceed, call sandbox_mode with mode "workspace-write" and a justification (the user must approve), then retry`, text)

				text, isErr = callIn(t, cs, h, "sandbox_mode", map[string]any{"mode": "workspace-write", "justification": widen})
				assert.False(t, isErr, text)
				assert.Equal(t, `Sandbox mode changed from read-only to workspace-write (writes allowed under "`+st.W+`"), approved by the user`, text)
				require.Len(t, *seen, 1, "the user is asked exactly once")
				assert.Equal(t, elicited{mode: "form", message: question, schema: `{"properties":{},"type":"object"}`}, (*seen)[0])

				text, isErr = callIn(t, cs, h, "write", map[string]any{"file_path": "new.txt", "content": "x"})
				assert.False(t, isErr, text)
				got, err := os.ReadFile(filepath.Join(st.W, "new.txt"))
				require.NoError(t, err)
				assert.Equal(t, "x", string(got))

				other, _ := connectAsking(t, srv, "accept", version)
				text, isErr = callIn(t, other, handleFor(version, "other"), "write", map[string]any{"file_path": "other.txt", "content": "x"})
				assert.True(t, isErr, "another conversation stays read-only")
				assert.Contains(t, text, "the sandbox is in read-only mode")
			})

			t.Run("a declined widening keeps the refusal", func(t *testing.T) {
				cs, seen := connectAsking(t, srv, "decline", version)
				h := handleFor(version, "declining")
				text, isErr := callIn(t, cs, h, "sandbox_mode", map[string]any{"mode": "workspace-write", "justification": widen})
				assert.True(t, isErr)
				assert.Equal(t, "Error: cannot switch the sandbox to workspace-write mode: the user declined; the mode stays read-only", text)
				assert.Len(t, *seen, 1)
				text, isErr = callIn(t, cs, h, "write", map[string]any{"file_path": "declined.txt", "content": "x"})
				assert.True(t, isErr)
				assert.Equal(t, `Error: cannot write "`+st.W+`/declined.txt": the sandbox is in read-only mode — to proceed, call sandbox_mode with mode "workspace-write" and a justification (the user must approve), then retry`, text)
				assert.NoFileExists(t, filepath.Join(st.W, "declined.txt"))
			})

			t.Run("a cancelled question changes nothing", func(t *testing.T) {
				cs, _ := connectAsking(t, srv, "cancel", version)
				h := handleFor(version, "cancelling")
				text, isErr := callIn(t, cs, h, "sandbox_mode", map[string]any{"mode": "full-access", "justification": widen})
				assert.True(t, isErr)
				assert.Equal(t, "Error: cannot switch the sandbox to full-access mode: the user cancelled the approval; the mode stays read-only", text)
				text, _ = callIn(t, cs, h, "sandbox_mode", map[string]any{})
				assert.Equal(t, "Sandbox mode: read-only", text)
			})

			t.Run("a client without elicitation is told so", func(t *testing.T) {
				cs, _ := connectAsking(t, srv, "", version)
				h := handleFor(version, "mute")
				text, isErr := callIn(t, cs, h, "sandbox_mode", map[string]any{"mode": "workspace-write", "justification": widen})
				assert.True(t, isErr)
				assert.Equal(t, "Error: cannot switch the sandbox to workspace-write mode: the user must approve a wider mode, but this session has no way to ask; the mode stays read-only", text)
				text, isErr = callIn(t, cs, h, "sandbox_mode", map[string]any{"mode": "read-only"})
				assert.False(t, isErr)
				assert.Equal(t, "Sandbox mode unchanged: read-only", text)
			})
		})
	}
}

// TestAPrincipalsOwnConversationNeverAsks: a 2026-07-28 request that names
// no conversation runs in its principal's, which can narrow but never
// widen, even when its client could answer (conversations.md §3).
func TestAPrincipalsOwnConversationNeverAsks(t *testing.T) {
	_, srv := sandboxServer(t)
	cs, seen := connectAsking(t, srv, "accept", "")
	text, isErr := call(t, cs, "sandbox_mode", map[string]any{"mode": "workspace-write", "justification": widen})
	assert.True(t, isErr)
	assert.Equal(t, "Error: cannot switch the sandbox to workspace-write mode: the user must approve a wider mode, but this session has no way to ask; the mode stays read-only", text)
	assert.Empty(t, *seen, "the user is never asked")
}

// TestSessionClosedIsEmitted: when a legacy MCP session that made calls
// ends, the server emits conversation/closed with its conversation ID,
// `stdio/s/<internal id>` (conversations.md §1 rule 2, §2).
func TestSessionClosedIsEmitted(t *testing.T) {
	st, srv := sandboxServer(t)
	closed := make(chan string, 4)
	_, err := events.ConversationClosed.On(st.Host.Root(), func(_ context.Context, id string) error {
		closed <- id
		return nil
	})
	require.NoError(t, err)
	cs, _ := connectAsking(t, srv, "", oldProtocol)
	_, isErr := call(t, cs, "list", map[string]any{})
	require.False(t, isErr)
	require.Equal(t, 1, srv.Sessions())
	require.NoError(t, cs.Close())
	select {
	case id := <-closed:
		assert.Regexp(t, `^stdio/s/[0-9a-f-]{36}$`, id)
	case <-time.After(5 * time.Second):
		t.Fatal("no conversation/closed after the client closed")
	}
	assert.Zero(t, srv.Conversations())
}
