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
	"time"

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

// DefaultApprovalTimeout bounds the wait for the user's answer to one
// approval question when Options.ApprovalTimeout is zero: past it the
// question fails with "no answer from the user within <timeout>" (the
// <cause> of sandbox.md §4.2 rule 6.3), so a forgotten question never holds
// a call, a reload or a shutdown for longer. It is shorter than
// DefaultCallTimeout, so that by default the refusal, not the call's
// timeout, tells the model what happened.
const DefaultApprovalTimeout = 4 * time.Minute

// errShuttingDown is the cause of the questions pending when the server's
// Run ends (SIGTERM, EOF): they fail at once instead of holding the
// shutdown until the user answers.
var errShuttingDown = errors.New("the server is shutting down")

// approvals is the server's side of every approval question: the secret
// that binds multi round-trip answers to their question, the bound of a
// wait, and the context that ends every pending question at shutdown.
type approvals struct {
	key     []byte
	timeout time.Duration
	ctx     context.Context // done once the server shuts down
	cancel  context.CancelCauseFunc
}

// newApprovals returns the approval state of a server; timeout <= 0 means
// DefaultApprovalTimeout.
func newApprovals(timeout time.Duration) *approvals {
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ctx, cancel := context.WithCancelCause(context.Background())
	return &approvals{key: key, timeout: timeout, ctx: ctx, cancel: cancel}
}

// shutdown fails every pending question and every later one with
// errShuttingDown.
func (a *approvals) shutdown() { a.cancel(errShuttingDown) }

// EndApprovals fails every pending approval question, and every later one,
// with "the server is shutting down", so that shutting down never waits for
// the user. Run calls it when its context ends; a front end serving by
// other means (HTTPHandler) calls it before draining its requests.
func (s *Server) EndApprovals() { s.approvals.shutdown() }

// approval is the approval channel of one tools/call (sandbox.md §4.3).
//
// A client on a protocol older than the multi round-trip one (2026-07-28)
// is asked inside the call, through ServerSession.Elicit (elicit below):
// the call stays in flight while the user thinks, so a config reload lets
// it finish first, and every failure of the channel (the client's error,
// the call's cancellation, the timeout, shutdown) is the tool's error, not
// a JSON-RPC one.
//
// A multi round-trip client is asked through the SDK's input requests: the first round's Ask finds
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

// askFunc returns the approval channel of the call, or nil when the client
// did not declare form elicitation at initialisation (sandbox.md §4.3: Ask
// is then nil).
func (s *Server) askFunc(req *mcp.CallToolRequest, session string) (tools.AskFunc, *approval) {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil || (caps.Elicitation.Form == nil && caps.Elicitation.URL != nil) {
		return nil, nil
	}
	if ss := req.Session; ss != nil && !multiRoundTrip(ss) {
		return s.approvals.elicit(ss), nil
	}
	a := &approval{key: s.approvals.key, session: session, params: req.Params}
	return a.ask, a
}

// multiRoundTrip reports whether the session's client speaks the protocol
// that carries input requests in results (2026-07-28 and later); the SDK's
// own test is unexported.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= "2026-07-28"
}

// elicit returns the Ask of a session asked through elicitation/create
// within the call. The wait ends with the call, after the approval timeout
// ("no answer from the user within 5m0s") or at shutdown ("the server is
// shutting down"); the error is then the wait's cause.
func (a *approvals) elicit(ss *mcp.ServerSession) tools.AskFunc {
	return func(ctx context.Context, message string) (tools.Answer, error) {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(a.ctx, func() { cancel(context.Cause(a.ctx)) })
		defer stop()
		ctx, cancelWait := context.WithTimeoutCause(ctx, a.timeout, fmt.Errorf("no answer from the user within %s", a.timeout))
		defer cancelWait()
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: approvalSchema})
		if ctx.Err() != nil {
			return 0, context.Cause(ctx)
		}
		if err != nil {
			return 0, err
		}
		return answerOf(res)
	}
}

// answerOf maps an elicitation's action to the answer (sandbox.md §4.3).
func answerOf(res *mcp.ElicitResult) (tools.Answer, error) {
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
			return answerOf(res)
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
