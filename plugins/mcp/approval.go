package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-go/dsh/plugins/tools"
)

// approvalRequest is the id of the input request that asks the user a
// session's approval question (sandbox.md §4.3).
const approvalRequest = "dshhost/approval"

// approvalSchema is the requested schema of every approval question: an
// empty object, since the answer is the action alone.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// errInputRequired ends a tool body that asked a question this round of the
// call has no answer to; the handler discards the body's result and returns
// the question as an input request instead.
var errInputRequired = errors.New("the user's answer is needed")

// approval is the approval channel of one tools/call (sandbox.md §4.3).
// It uses the SDK's multi round-trip requests: the first round's Ask finds
// no answer, records the question and fails; the handler then returns an
// input-required result carrying `elicitation/create` {"mode":"form",
// "message":<question>,"requestedSchema":{"type":"object","properties":{}}}
// (the SDK sends it to clients on older protocol versions itself, through
// ServerSession.Elicit), and the client calls again with the user's answer,
// which the next round's Ask returns. The call's request state binds an
// answer to its question and session, so an answer the server never asked
// for is ignored.
type approval struct {
	key      []byte // the server's secret for request states
	session  string // the tools.Session ID
	params   *mcp.CallToolParamsRaw
	question *mcp.ElicitParams // set when Ask needs an answer
	state    string
}

// newApprovalKey returns a fresh secret for approval request states.
func newApprovalKey() []byte {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return key
}

// askFunc returns the approval channel of the call, or nil when the client
// did not declare form elicitation at initialisation (sandbox.md §4.3: Ask
// is then nil).
func (s *Server) askFunc(req *mcp.CallToolRequest, session string) (tools.AskFunc, *approval) {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil || (caps.Elicitation.Form == nil && caps.Elicitation.URL != nil) {
		return nil, nil
	}
	a := &approval{key: s.approvalKey, session: session, params: req.Params}
	return a.ask, a
}

// stateOf binds one question to the session.
func (a *approval) stateOf(message string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(a.session))
	m.Write([]byte{0})
	m.Write([]byte(message))
	return hex.EncodeToString(m.Sum(nil))
}

// ask returns the user's answer to message when this round carries it,
// else records the question and fails with errInputRequired.
func (a *approval) ask(ctx context.Context, message string) (tools.Answer, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	state := a.stateOf(message)
	if a.params != nil && hmac.Equal([]byte(a.params.RequestState), []byte(state)) {
		if res, ok := a.params.InputResponses[approvalRequest].(*mcp.ElicitResult); ok && res != nil {
			switch res.Action {
			case "accept":
				return tools.Approved, nil
			case "decline":
				return tools.Declined, nil
			case "cancel":
				return tools.Cancelled, nil
			}
			return 0, fmt.Errorf("unknown elicitation action %q", res.Action)
		}
	}
	a.question = &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: approvalSchema}
	a.state = state
	return 0, errInputRequired
}

// inputRequired returns the input-required result for a question asked in
// this round, or nil.
func (a *approval) inputRequired() *mcp.CallToolResult {
	if a == nil || a.question == nil {
		return nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approvalRequest: a.question}, RequestState: a.state}
}
