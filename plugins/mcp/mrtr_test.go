package mcp_test

import (
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// rounds is a 2026-07-28 client that declares elicitation but answers
// input requests itself, round by round (its SDK's automatic rounds are
// off), so that a test can send any answer with any request state.
type rounds struct {
	t  *testing.T
	cs *mcp.ClientSession
}

func newRounds(t *testing.T, srv *mcpserver.Server) rounds {
	cs, _ := connectWith(t, srv, "accept", "", &mcp.MultiRoundTripOptions{Disabled: true})
	return rounds{t: t, cs: cs}
}

var widenArgs = map[string]any{"mode": "workspace-write", "justification": widen}

// call sends one round of tools/call in conversation handle.
func (r rounds) call(handle, name string, args map[string]any, state, action string) (*mcp.CallToolResult, error) {
	p := &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{mcpserver.ConversationMetaKey: handle}, RequestState: state}
	if action != "" {
		p.InputResponses = mcp.InputResponseMap{"dshhost/approval": &mcp.ElicitResult{Action: action}}
	}
	return r.cs.CallTool(r.t.Context(), p)
}

// ask sends the first round of sandbox_mode's widening and returns the
// request state of the question it gets back.
func (r rounds) ask(handle string) string {
	r.t.Helper()
	res, err := r.call(handle, "sandbox_mode", widenArgs, "", "")
	require.NoError(r.t, err)
	require.True(r.t, res.NeedsInput(), "an input-required result")
	q, ok := res.InputRequests["dshhost/approval"].(*mcp.ElicitParams)
	require.True(r.t, ok, "the approval question: %#v", res.InputRequests)
	assert.Equal(r.t, "form", q.Mode)
	assert.Contains(r.t, q.Message, "for the rest of this conversation (sandbox mode workspace-write, now read-only)")
	require.NotEmpty(r.t, res.RequestState)
	return res.RequestState
}

// text returns the one text block of a result.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	return res.Content[0].(*mcp.TextContent).Text
}

// rpcError returns the JSON-RPC error a call failed with.
func rpcError(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	var je *jsonrpc.Error
	require.True(t, errors.As(err, &je), "a JSON-RPC error, not %v", err)
	return je
}

func (r rounds) mode(handle string) string {
	r.t.Helper()
	res, err := r.call(handle, "sandbox_mode", map[string]any{}, "", "")
	require.NoError(r.t, err)
	return text(r.t, res)
}

// TestApprovalOverMultiRoundTrip: conversations.md §5.4. Accept widens;
// decline and cancel do not; a tampered, replayed, expired or
// other-conversation state never widens.
func TestApprovalOverMultiRoundTrip(t *testing.T) {
	st, srv := sandboxServer(t)
	r := newRounds(t, srv)
	const changed = "Sandbox mode changed from read-only to workspace-write"

	t.Run("accept widens, and its state again is the same success without widening twice", func(t *testing.T) {
		state := r.ask("acc")
		res, err := r.call("acc", "sandbox_mode", widenArgs, state, "accept")
		require.NoError(t, err)
		require.False(t, res.IsError, text(t, res))
		assert.Contains(t, text(t, res), changed)
		first := text(t, res)
		res, err = r.call("acc", "write", map[string]any{"file_path": "acc.txt", "content": "x"}, "", "")
		require.NoError(t, err)
		assert.False(t, res.IsError, text(t, res))
		assert.FileExists(t, filepath.Join(st.W, "acc.txt"))

		res, err = r.call("acc", "sandbox_mode", map[string]any{"mode": "read-only"}, "", "")
		require.NoError(t, err)
		require.False(t, res.IsError)
		res, err = r.call("acc", "sandbox_mode", widenArgs, state, "accept")
		require.NoError(t, err, "a client retrying the accepted round")
		assert.Equal(t, first, text(t, res), "the same success again")
		assert.Equal(t, "Sandbox mode: read-only", r.mode("acc"), "not widened twice")
	})

	for _, tc := range []struct{ action, word, refusal string }{
		{"decline", "declined", "the user declined"},
		{"cancel", "cancelled", "the user cancelled the approval"},
	} {
		t.Run(tc.action+" does not widen, and its state again is refused", func(t *testing.T) {
			h := "h-" + tc.action
			state := r.ask(h)
			res, err := r.call(h, "sandbox_mode", widenArgs, state, tc.action)
			require.NoError(t, err)
			assert.True(t, res.IsError)
			assert.Equal(t, "Error: cannot switch the sandbox to workspace-write mode: "+tc.refusal+"; the mode stays read-only", text(t, res))
			_, err = r.call(h, "sandbox_mode", widenArgs, state, "accept")
			je := rpcError(t, err)
			assert.Equal(t, int64(jsonrpc.CodeInvalidParams), je.Code)
			assert.Equal(t, "invalid requestState: its question was already answered ("+tc.word+")", je.Message)
			assert.Equal(t, "Sandbox mode: read-only", r.mode(h))
		})
	}

	t.Run("a tampered state", func(t *testing.T) {
		state := []byte(r.ask("tamper"))
		state[len(state)/2] ^= 1
		_, err := r.call("tamper", "sandbox_mode", widenArgs, string(state), "accept")
		assert.Equal(t, "invalid requestState: it was not issued by this server (or the server restarted)", rpcError(t, err).Message)
		_, err = r.call("tamper", "sandbox_mode", widenArgs, "forged", "accept")
		assert.Equal(t, "invalid requestState: it was not issued by this server (or the server restarted)", rpcError(t, err).Message)
		assert.Equal(t, "Sandbox mode: read-only", r.mode("tamper"))
	})

	t.Run("another conversation's state", func(t *testing.T) {
		state := r.ask("mine")
		_, err := r.call("theirs", "sandbox_mode", widenArgs, state, "accept")
		assert.Equal(t, "invalid requestState: it belongs to another conversation", rpcError(t, err).Message)
		assert.Equal(t, "Sandbox mode: read-only", r.mode("theirs"))
		assert.Equal(t, "Sandbox mode: read-only", r.mode("mine"))
	})

	t.Run("a state for other arguments or another tool", func(t *testing.T) {
		state := r.ask("args")
		_, err := r.call("args", "sandbox_mode", map[string]any{"mode": "full-access", "justification": widen}, state, "accept")
		assert.Equal(t, "invalid requestState: it was issued for another tool call", rpcError(t, err).Message)
		_, err = r.call("args", "write", map[string]any{"file_path": "x.txt", "content": "x"}, state, "accept")
		assert.Equal(t, "invalid requestState: it was issued for another tool call", rpcError(t, err).Message)
		// The same arguments in another key order are the same call (RFC
		// 8785), so the question is still answerable.
		res, err := r.call("args", "sandbox_mode", map[string]any{"justification": widen, "mode": "workspace-write"}, state, "accept")
		require.NoError(t, err)
		assert.Contains(t, text(t, res), changed)
	})

	t.Run("an answer without its question is asked anew", func(t *testing.T) {
		res, err := r.call("nostate", "sandbox_mode", widenArgs, "", "accept")
		require.NoError(t, err)
		assert.True(t, res.NeedsInput(), "an accepting answer without a state widens nothing")
		assert.Equal(t, "Sandbox mode: read-only", r.mode("nostate"))
	})
	assert.NoFileExists(t, filepath.Join(st.W, "x.txt"))
}

// TestAStateOfAnEndedConversationIsRefused: a conversation that ended
// (here evicted) and started anew under the same ID is another
// incarnation: the old question cannot be answered.
func TestAStateOfAnEndedConversationIsRefused(t *testing.T) {
	st := stacktest.New(t, stacktest.Options{FSSandbox: map[string]any{"mode": "read-only", "sessionSwitch": true}})
	srv, err := mcpserver.New(st.Host.Root(), st.Registry, mcpserver.Options{Name: "test", Version: "1", Cwd: func() string { return st.W }, MaxConversations: 1})
	require.NoError(t, err)
	r := newRounds(t, srv)
	state := r.ask("old")
	r.mode("other") // evicts "old"
	_, err = r.call("old", "sandbox_mode", widenArgs, state, "accept")
	assert.Equal(t, "invalid requestState: it belongs to another conversation", rpcError(t, err).Message)
}

// TestAnExpiredStateAsksAgain: past 5 minutes the question is asked anew
// (a fresh input-required result), and the old answer widens nothing.
func TestAnExpiredStateAsksAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, srv := sandboxServer(t)
		r := newRounds(t, srv)
		state := r.ask("late")
		time.Sleep(5*time.Minute + time.Second)
		res, err := r.call("late", "sandbox_mode", widenArgs, state, "accept")
		require.NoError(t, err)
		assert.True(t, res.NeedsInput(), "asked again")
		assert.NotEqual(t, state, res.RequestState)
		assert.Equal(t, "Sandbox mode: read-only", r.mode("late"))
		res, err = r.call("late", "sandbox_mode", widenArgs, res.RequestState, "accept")
		require.NoError(t, err)
		assert.Contains(t, text(t, res), "approved by the user", "the fresh question is answerable")
	})
}
