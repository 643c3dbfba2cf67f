package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/tools"
)

// greeter registers "greet", which asks the user's name (state "asked")
// and greets them once the answer and its state come back; it records
// the State and Responses of each round.
func greeter(t *testing.T, s *stack) *[]string {
	var mu sync.Mutex
	var rounds []string
	_, err := s.Registry.Register(s.Host.Root(), tools.Tool{Name: "greet", Parameters: []byte(`{"type":"object","properties":{}}`),
		Render: func(_ tools.Args, v any) []tools.Block { return []tools.Block{tools.TextBlock(v.(string))} },
		Execute: func(_ context.Context, _ tools.Args, exec *tools.Exec) (any, error) {
			mu.Lock()
			rounds = append(rounds, exec.State+" "+string(exec.Responses["name"]))
			mu.Unlock()
			var answer struct {
				Action  string            `json:"action"`
				Content map[string]string `json:"content"`
			}
			if exec.State == "asked" && json.Unmarshal(exec.Responses["name"], &answer) == nil && answer.Action == "accept" {
				return "Hello, " + answer.Content["name"] + "!", nil
			}
			return nil, &tools.InputRequired{State: "asked", Requests: map[string]tools.InputRequest{"name": {Method: tools.InputElicit,
				Params: json.RawMessage(`{"mode":"form","message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`)}}}
		}})
	require.NoError(t, err)
	return &rounds
}

// connectAnswering opens a client at version ("": 2026-07-28) that answers
// every elicitation with name Ada, its SDK running the rounds.
func connectAnswering(t *testing.T, s *stack, version string) *mcp.ClientSession {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.srv.MCP().Connect(t.Context(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}}).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestAToolAsksItsClientForInput: a tool's input requests reach the user,
// as an input-required result at 2026-07-28 and as elicitation/create
// within the call for a legacy session, and the call's next round carries
// the answer and the tool's own state.
func TestAToolAsksItsClientForInput(t *testing.T) {
	for _, version := range []string{"", oldProtocol} {
		t.Run("protocol "+version, func(t *testing.T) {
			s := newStack(t)
			rounds := greeter(t, s)
			cs := connectAnswering(t, s, version)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
			require.NoError(t, err)
			require.False(t, res.IsError)
			assert.Equal(t, "Hello, Ada!", res.Content[0].(*mcp.TextContent).Text)
			assert.Equal(t, []string{" ", `asked {"action":"accept","content":{"name":"Ada"}}`}, *rounds)
		})
	}
}

// TestAToolsStateIsSealed: the state of an input round comes back to the
// tool only as issued, for the same call: altered, it is the request's
// -32602, and a retry without it carries the answers but no State.
func TestAToolsStateIsSealed(t *testing.T) {
	s := newStack(t)
	rounds := greeter(t, s)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.srv.MCP().Connect(t.Context(), st, nil)
	require.NoError(t, err)
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}).Connect(t.Context(), ct, nil)
	require.NoError(t, err)
	defer cs.Close()
	first, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.True(t, first.NeedsInput())
	require.Contains(t, first.InputRequests, "name")
	require.NotEmpty(t, first.RequestState)
	assert.NotContains(t, first.RequestState, "asked", "the tool's state travels sealed")
	answer := mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}

	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}, InputResponses: answer, RequestState: first.RequestState + "x"})
	var rpc *jsonrpc.Error
	require.True(t, errors.As(err, &rpc), "%v", err)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code)
	assert.Equal(t, "invalid requestState: it was not issued by this server (or the server restarted)", rpc.Message)

	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"x": 1}, InputResponses: answer, RequestState: first.RequestState})
	require.True(t, errors.As(err, &rpc), "%v", err)
	assert.Equal(t, "invalid requestState: it was issued for another tool call", rpc.Message)

	again, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}, InputResponses: answer})
	require.NoError(t, err)
	assert.True(t, again.NeedsInput(), "answers without the state: the tool asks again")

	done, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}, InputResponses: answer, RequestState: first.RequestState})
	require.NoError(t, err)
	assert.Equal(t, "Hello, Ada!", done.Content[0].(*mcp.TextContent).Text)
	assert.Equal(t, " ", (*rounds)[0])
	assert.Len(t, *rounds, 3, "the refused retries never ran the tool")
}

// TestInputOfAnUndeclaredCapabilityIsRefused: a tool that asks a client
// for what it did not declare gets the request refused -32021, naming the
// capability.
func TestInputOfAnUndeclaredCapabilityIsRefused(t *testing.T) {
	s := newStack(t)
	greeter(t, s)
	cs := s.connectAt(t, "") // declares no elicitation
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	var rpc *jsonrpc.Error
	require.True(t, errors.As(err, &rpc), "%v", err)
	assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpc.Code)
	assert.Equal(t, "tool greet needs the client's elicitation capability, which it did not declare", rpc.Message)
	assert.JSONEq(t, `{"requiredCapabilities":{"elicitation":{}}}`, string(rpc.Data))
}

// TestOnlyToolsAreServed: the methods of the features the server does not
// declare answer -32601 in both eras, instead of the SDK's empty lists
// (conversations.md §4.3).
func TestOnlyToolsAreServed(t *testing.T) {
	for _, version := range []string{"", oldProtocol} {
		t.Run("protocol "+version, func(t *testing.T) {
			s := newStack(t)
			cs := s.connectAt(t, version)
			caps := cs.InitializeResult().Capabilities
			assert.Nil(t, caps.Prompts)
			assert.Nil(t, caps.Resources)
			assert.Nil(t, caps.Completions)
			assert.NotNil(t, caps.Tools)
			_, err := cs.ListPrompts(t.Context(), nil)
			var rpc *jsonrpc.Error
			require.True(t, errors.As(err, &rpc), "%v", err)
			assert.Equal(t, int64(jsonrpc.CodeMethodNotFound), rpc.Code)
			assert.Equal(t, `method not found: "prompts/list"`, rpc.Message)
			_, err = cs.ListResources(t.Context(), nil)
			require.True(t, errors.As(err, &rpc), "%v", err)
			assert.Equal(t, int64(jsonrpc.CodeMethodNotFound), rpc.Code)
		})
	}
}
