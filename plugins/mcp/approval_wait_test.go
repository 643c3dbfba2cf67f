package mcp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// oldProtocol is a client protocol without multi round-trip results: the
// server asks such a client inside the call (elicitation/create).
const oldProtocol = "2025-06-18"

// waitingServer is sandboxServer with an approval timeout.
func waitingServer(t *testing.T, timeout time.Duration) (*stacktest.Stack, *mcpserver.Server) {
	t.Helper()
	st := stacktest.New(t, stacktest.Options{FSSandbox: map[string]any{"mode": "read-only", "sessionSwitch": true}})
	srv, err := mcpserver.New(st.Host.Root(), st.Registry, mcpserver.Options{Name: "test", Version: "1", Cwd: func() string { return st.W }, ApprovalTimeout: timeout})
	require.NoError(t, err)
	return st, srv
}

// connectHandler opens an old-protocol session whose elicitations go to
// handle.
func connectHandler(t *testing.T, srv *mcpserver.Server, handle func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(t.Context(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: handle}).
		Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: oldProtocol})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func widenCall(t *testing.T, cs *mcp.ClientSession) (string, bool) {
	t.Helper()
	return call(t, cs, "sandbox_mode", map[string]any{"mode": "workspace-write", "justification": widen})
}

// TestAFailedApprovalIsTheToolsError: the client's elicitation failing is
// the tool's refusal with the cause (sandbox.md §4.2 rule 6.3), not a
// JSON-RPC error of the call.
func TestAFailedApprovalIsTheToolsError(t *testing.T) {
	_, srv := waitingServer(t, 0)
	cs := connectHandler(t, srv, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, errors.New("client exploded")
	})
	text, isErr := widenCall(t, cs)
	assert.True(t, isErr)
	assert.Regexp(t, `^Error: cannot switch the sandbox to workspace-write mode: asking the user failed \(.*client exploded.*\); the mode stays read-only$`, text)
	text, _ = call(t, cs, "sandbox_mode", map[string]any{})
	assert.Equal(t, "Sandbox mode: read-only", text)
}

// TestTheApprovalWaitIsBounded: a question nobody answers fails after the
// approval timeout, naming it.
func TestTheApprovalWaitIsBounded(t *testing.T) {
	_, srv := waitingServer(t, 100*time.Millisecond)
	cs := connectHandler(t, srv, func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		select { // the user never answers; the server must give up first
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
	})
	text, isErr := widenCall(t, cs)
	assert.True(t, isErr)
	assert.Equal(t, "Error: cannot switch the sandbox to workspace-write mode: asking the user failed (no answer from the user within 100ms); the mode stays read-only", text)
}

// TestShutdownEndsAPendingApproval: when Run's context ends (SIGTERM in
// dshhost serve) while the user has not answered, Run returns promptly.
func TestShutdownEndsAPendingApproval(t *testing.T) {
	_, srv := waitingServer(t, 0)
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx, st) }()
	asked := make(chan struct{})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			close(asked)
			<-ctx.Done()
			return nil, ctx.Err()
		}}).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: oldProtocol})
	require.NoError(t, err)
	defer cs.Close()
	go func() {
		_, _ = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "sandbox_mode", Arguments: map[string]any{"mode": "workspace-write", "justification": widen}})
	}()
	select {
	case <-asked:
	case <-time.After(5 * time.Second):
		t.Fatal("the user was never asked")
	}
	cancel()
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return while an approval was pending")
	}
}

// TestAnUnloadWaitsForThePendingApproval: disposing fssandbox (a config
// reload restarting it) while the user thinks lets the call finish first:
// the user's accept is the call's result, and the user is asked once.
func TestAnUnloadWaitsForThePendingApproval(t *testing.T) {
	st, srv := waitingServer(t, 0)
	asked, answer := make(chan struct{}), make(chan struct{})
	n := 0
	cs := connectHandler(t, srv, func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		n++
		if n == 1 {
			close(asked)
		}
		select {
		case <-answer:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.ElicitResult{Action: "accept"}, nil
	})
	type result struct {
		text  string
		isErr bool
	}
	got := make(chan result, 1)
	go func() {
		text, isErr := widenCall(t, cs)
		got <- result{text, isErr}
	}()
	select {
	case <-asked:
	case <-time.After(5 * time.Second):
		t.Fatal("the user was never asked")
	}
	disposed := make(chan error, 1)
	go func() { disposed <- st.Sandbox.Dispose(context.Background()) }()
	select {
	case err := <-disposed:
		t.Fatalf("fssandbox was disposed while its call was pending (err %v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(answer)
	r := <-got
	assert.False(t, r.isErr, r.text)
	assert.Equal(t, `Sandbox mode changed from read-only to workspace-write (writes allowed under "`+st.W+`"), approved by the user`, r.text)
	require.NoError(t, <-disposed)
	assert.Equal(t, 1, n, "the user is asked once")
}

// TestEndApprovalsFailsThePendingQuestion: a front end serving without Run
// (HTTP) ends pending questions with EndApprovals before draining.
func TestEndApprovalsFailsThePendingQuestion(t *testing.T) {
	_, srv := waitingServer(t, 0)
	asked := make(chan struct{})
	cs := connectHandler(t, srv, func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		close(asked)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
	})
	go func() {
		<-asked
		srv.EndApprovals()
	}()
	text, isErr := widenCall(t, cs)
	assert.True(t, isErr)
	assert.Equal(t, "Error: cannot switch the sandbox to workspace-write mode: asking the user failed (the server is shutting down); the mode stays read-only", text)
}
