package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gowebpki/jcs"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-go/dsh/plugins/tools"
)

// approvalRequest is the id of the input request that asks the user a
// conversation's approval question (sandbox.md §4.3).
const approvalRequest = "dshhost/approval"

// approvalSchema is the requested schema of every approval question: an
// empty object, since the answer is the action alone.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// errInputRequired ends a tool body that asked a question this round of the
// call has no answer to; the handler discards the body's result and returns
// the question as an input request instead.
var errInputRequired = errors.New("the user's answer is needed")

// DefaultApprovalTimeout bounds the wait for the user's answer to one
// approval question asked within a call (a legacy session's
// elicitation/create) when Options.ApprovalTimeout is zero: past it the
// question fails with "no answer from the user within <timeout>" (the
// <cause> of sandbox.md §4.2 rule 6.3), so a forgotten question never holds
// a call, a reload or a shutdown for longer. It is shorter than
// DefaultCallTimeout, so that by default the refusal, not the call's
// timeout, tells the model what happened.
const DefaultApprovalTimeout = 4 * time.Minute

// approvalStateLife is how long a multi round-trip approval question stays
// answerable (conversations.md §3: issued + 5 minutes).
const approvalStateLife = 5 * time.Minute

// errShuttingDown is the cause of the questions pending when the server's
// Run ends (SIGTERM, EOF): they fail at once instead of holding the
// shutdown until the user answers.
var errShuttingDown = errors.New("the server is shutting down")

// approvals is the server's side of every approval question: the secret
// that binds multi round-trip answers to their question, the answers
// already used, the bound of a wait, and the context that ends every
// pending question at shutdown.
type approvals struct {
	key     []byte // 32 random bytes per process: a restart invalidates pending states
	timeout time.Duration
	ctx     context.Context // done once the server shuts down
	cancel  context.CancelCauseFunc

	mu   sync.Mutex
	used map[string]*answered // nonce → its answer, until the state expires
}

// answered is the answer of one request state's retry.
type answered struct {
	expiry time.Time
	done   chan struct{} // closed once the retry returned
	answer tools.Answer  // set before done is closed
	result tools.Result  // the accepted retry's result
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
	return &approvals{key: key, timeout: timeout, ctx: ctx, cancel: cancel, used: map[string]*answered{}}
}

// shutdown fails every pending question and every later one with
// errShuttingDown.
func (a *approvals) shutdown() { a.cancel(errShuttingDown) }

// EndApprovals fails every pending approval question, and every later one,
// with "the server is shutting down", so that shutting down never waits for
// the user. Run calls it when its context ends; a front end serving by
// other means (HTTPHandler) calls it before draining its requests.
func (s *Server) EndApprovals() { s.approvals.shutdown() }

// elicit returns the Ask of a legacy session, asked through
// elicitation/create within the call (sandbox.md §4.3): the call stays in
// flight while the user thinks. The wait ends with the call, after the
// approval timeout ("no answer from the user within 4m0s") or at shutdown
// ("the server is shutting down"); the error is then the wait's cause.
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

// approvalState is the payload of a request state (conversations.md §3):
// what one question binds.
type approvalState struct {
	Conversation string `json:"c"`
	Incarnation  uint64 `json:"i"`
	Tool         string `json:"t"`
	Args         []byte `json:"a"` // SHA-256 of the arguments in RFC 8785 canonical JSON
	Expiry       int64  `json:"e"` // Unix milliseconds
	Nonce        []byte `json:"n"` // 16 random bytes
	// Input marks the state of a tool's own input round (input.go), whose
	// tool state is Carry; an approval question's state has neither.
	Input bool   `json:"in,omitempty"`
	Carry string `json:"s,omitempty"`
}

// argsDigest returns the SHA-256 of raw in RFC 8785 canonical JSON (absent
// arguments are the empty object).
func argsDigest(raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(canon)
	return sum[:], nil
}

// seal returns the request state of st: base64url(payload ‖
// HMAC-SHA256(key, payload)).
func (a *approvals) seal(st approvalState) string {
	payload, _ := json.Marshal(st)
	m := hmac.New(sha256.New, a.key)
	m.Write(payload)
	return base64.RawURLEncoding.EncodeToString(m.Sum(payload))
}

// open returns the payload of a request state this process issued.
func (a *approvals) open(state string) (approvalState, bool) {
	var st approvalState
	b, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(b) <= sha256.Size {
		return st, false
	}
	payload, mac := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	m := hmac.New(sha256.New, a.key)
	m.Write(payload)
	if !hmac.Equal(mac, m.Sum(nil)) || json.Unmarshal(payload, &st) != nil {
		return st, false
	}
	return st, true
}

// invalidState is the JSON-RPC error of a request state that can never be
// answered (conversations.md §3).
func invalidState(reason string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: " + reason}
}

// round is the approval channel of one tools/call of a 2026-07-28 request
// (a multi round-trip result, conversations.md §3): the first round's Ask
// finds no answer, records the question and fails; the handler then
// returns an input-required result carrying `elicitation/create`
// {"mode":"form","message":<question>,"requestedSchema":{"type":"object","properties":{}}}
// under "dshhost/approval" and a request state, and the client calls again
// with the user's answer and that state, which the next round's Ask
// returns.
type round struct {
	mu       sync.Mutex // the body asks; the answer may come from another goroutine (call timeout)
	a        *approvals
	convs    *conversations
	conv     *conversation
	tool     string
	args     []byte
	probe    bool         // a fast call's: a question only marks the round asked (no state)
	reply    *answered    // the retry's claim on its state's nonce
	claimed  tools.Answer // the user's answer the claimed state carries
	consumed bool         // ask returned it
	asked    *mcp.ElicitParams
	state    string
}

// newRound validates the request state a retry carries (none on a first
// round) and returns the call's channel, or the stored result of an
// accepted state used again (replay), or the JSON-RPC error of a state that
// can never be answered. An expired state starts a fresh round: the user
// is asked again.
func (a *approvals) newRound(ctx context.Context, convs *conversations, conv *conversation, tool string, params *mcp.CallToolParamsRaw) (r *round, replay *tools.Result, err error) {
	var raw json.RawMessage
	if params != nil {
		raw = params.Arguments
	}
	digest, err := argsDigest(raw)
	if err != nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid arguments: " + err.Error()}
	}
	r = &round{a: a, convs: convs, conv: conv, tool: tool, args: digest}
	if params == nil || params.RequestState == "" {
		return r, nil, nil
	}
	st, err := a.check(params.RequestState, conv, tool, digest)
	if err != nil {
		return nil, nil, err
	}
	if st.Input {
		return r, nil, nil // the tool's own round: no approval answer in it
	}
	now := time.Now()
	a.mu.Lock()
	a.pruneLocked(now)
	prior := a.used[string(st.Nonce)]
	expired := !now.Before(time.UnixMilli(st.Expiry))
	var res *mcp.ElicitResult
	if params.InputResponses != nil {
		res, _ = params.InputResponses[approvalRequest].(*mcp.ElicitResult)
	}
	var answer tools.Answer
	if res != nil {
		answer, err = answerOf(res)
	}
	claim := prior == nil && !expired && res != nil && err == nil
	if claim {
		r.reply = &answered{expiry: time.UnixMilli(st.Expiry), done: make(chan struct{})}
		r.claimed = answer
		a.used[string(st.Nonce)] = r.reply
	}
	a.mu.Unlock()
	switch {
	case prior != nil:
		select {
		case <-prior.done:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		if prior.answer == tools.Approved {
			res := prior.result
			return nil, &res, nil
		}
		return nil, nil, invalidState("its question was already answered (" + prior.answer.String() + ")")
	case err != nil:
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid inputResponses: " + err.Error()}
	}
	return r, nil, nil // claimed, or expired / unanswered: the user is asked afresh
}

// check opens a request state and checks that it was issued for this call:
// the same conversation (and incarnation), tool and arguments (digest).
func (a *approvals) check(state string, conv *conversation, tool string, digest []byte) (approvalState, error) {
	st, ok := a.open(state)
	switch {
	case !ok:
		return st, invalidState("it was not issued by this server (or the server restarted)")
	case st.Conversation != conv.id || st.Incarnation != conv.incarnation:
		return st, invalidState("it belongs to another conversation")
	case st.Tool != tool || !hmac.Equal(st.Args, digest):
		return st, invalidState("it was issued for another tool call")
	}
	return st, nil
}

// pruneLocked forgets the answers whose states expired; a.mu is held.
func (a *approvals) pruneLocked(now time.Time) {
	for n, u := range a.used {
		if !now.Before(u.expiry) {
			delete(a.used, n)
		}
	}
}

// ask returns the user's answer this round carries, once; otherwise it
// records the question (at most approvalsPerMinute a minute per
// conversation) and fails with errInputRequired.
func (r *round) ask(ctx context.Context, message string) (tools.Answer, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.probe {
		r.asked = &mcp.ElicitParams{}
		return 0, errInputRequired
	}
	if r.reply != nil && !r.consumed {
		r.consumed = true
		return r.claimed, nil
	}
	now := time.Now()
	if !r.convs.allowQuestion(r.conv, now) {
		return 0, fmt.Errorf("this conversation asked %d questions in the last minute, the most it may", approvalsPerMinute)
	}
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	r.asked = &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: approvalSchema}
	r.state = r.a.seal(approvalState{Conversation: r.conv.id, Incarnation: r.conv.incarnation, Tool: r.tool, Args: r.args,
		Expiry: now.Add(approvalStateLife).UnixMilli(), Nonce: nonce})
	return 0, errInputRequired
}

// finish ends the round with the tool's result: the input-required result
// when the tool asked a question this round could not answer (ask nil
// otherwise); a claimed state is marked answered, and an accepted one keeps
// res for a retry of the same state.
func (r *round) finish(res tools.Result) (ask *mcp.CallToolResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reply != nil {
		r.a.mu.Lock()
		r.reply.answer = r.claimed
		if r.reply.answer == tools.Approved {
			r.reply.result = res
		}
		r.a.mu.Unlock()
		close(r.reply.done)
		r.reply = nil
	}
	if r.asked == nil {
		return nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approvalRequest: r.asked}, RequestState: r.state}
}
