package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-go/dsh/plugins/tools"
)

// inputStateMax bounds the State a tool carries from one input round to the
// next (tools.InputRequired).
const inputStateMax = 4 << 10

// inputOf gives exec what the retry of a call whose tool asked for input
// carries (tools.InputRequired): the client's answers, as sent, and the
// tool's State from the request state the last round sealed. A state issued
// for another call is the request's -32602; an expired one, or an approval
// question's, carries no State.
func (s *Server) inputOf(req *mcp.CallToolRequest, conv *conversation, name string, exec *tools.Exec) error {
	if req.Params == nil {
		return nil
	}
	if req.Params.RequestState != "" {
		digest, err := argsDigest(req.Params.Arguments)
		if err != nil {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid arguments: " + err.Error()}
		}
		st, err := s.approvals.check(req.Params.RequestState, conv, name, digest)
		if err != nil {
			return err
		}
		if st.Input && time.Now().Before(time.UnixMilli(st.Expiry)) {
			exec.State = st.Carry
		}
	}
	if len(req.Params.InputResponses) == 0 {
		return nil
	}
	exec.Responses = make(map[string]json.RawMessage, len(req.Params.InputResponses))
	for key, answer := range req.Params.InputResponses {
		b, err := json.Marshal(answer)
		if err != nil {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid inputResponses: %q: %v", key, err)}
		}
		exec.Responses[key] = b
	}
	return nil
}

// inputRequired is the answer of a call whose tool needs its client's
// input first: the requests as an input-required result, with the tool's
// State sealed into the request state (inputRequests says which request is
// refused how).
func (s *Server) inputRequired(req *mcp.CallToolRequest, conv *conversation, name string, capabilities json.RawMessage, in *tools.InputRequired) (*mcp.CallToolResult, tools.Result, error) {
	requests, failed, err := s.inputRequests(conv, name, capabilities, in)
	if err != nil || requests == nil {
		return nil, failed, err
	}
	var args json.RawMessage
	if req.Params != nil {
		args = req.Params.Arguments
	}
	digest, err := argsDigest(args)
	if err != nil {
		return nil, tools.Result{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid arguments: " + err.Error()}
	}
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	state := s.approvals.seal(approvalState{Conversation: conv.id, Incarnation: conv.incarnation, Tool: name, Args: digest,
		Expiry: time.Now().Add(approvalStateLife).UnixMilli(), Nonce: nonce, Input: true, Carry: in.State})
	return &mcp.CallToolResult{InputRequests: requests, RequestState: state}, tools.Result{}, nil
}

// inputRequests are a tool's requests for input (tools.InputRequired) as
// MCP's, or, when nil, why not: a request for a capability the client did
// not declare is the request's -32021 (MissingRequiredClientCapability, its
// data naming the capability); a malformed request, an oversized State, or
// a conversation past its questions per minute is the call's failure.
func (s *Server) inputRequests(conv *conversation, name string, capabilities json.RawMessage, in *tools.InputRequired) (mcp.InputRequestMap, tools.Result, error) {
	requests := make(mcp.InputRequestMap, len(in.Requests))
	for key, r := range in.Requests {
		var p mcp.InputRequest
		var capability string
		switch r.Method {
		case tools.InputElicit:
			p, capability = &mcp.ElicitParams{}, "elicitation"
		case tools.InputSample:
			p, capability = &mcp.CreateMessageWithToolsParams{}, "sampling"
		case tools.InputRoots:
			p, capability = &mcp.ListRootsParams{}, "roots"
		default:
			return nil, toolFailure(fmt.Sprintf("tool %s asked for input by an unknown method %q", name, r.Method)), nil
		}
		if len(r.Params) > 0 {
			if err := json.Unmarshal(r.Params, p); err != nil {
				return nil, toolFailure(fmt.Sprintf("tool %s asked for input %q with invalid params: %v", name, key, err)), nil
			}
		}
		if !declares(capabilities, capability) {
			data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{capability: map[string]any{}}})
			return nil, tools.Result{}, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
				Message: fmt.Sprintf("tool %s needs the client's %s capability, which it did not declare", name, capability), Data: data}
		}
		requests[key] = p
	}
	if len(in.State) > inputStateMax {
		return nil, toolFailure(fmt.Sprintf("tool %s carried %d bytes of state to its next round, more than %d", name, len(in.State), inputStateMax)), nil
	}
	if !s.conversations.allowQuestion(conv, time.Now()) {
		return nil, toolFailure(fmt.Sprintf("this conversation asked %d questions in the last minute, the most it may", approvalsPerMinute)), nil
	}
	return requests, tools.Result{}, nil
}

// legacyInputRounds bounds the rounds of input one call of a legacy
// session asks for (askLegacy).
const legacyInputRounds = 8

// askLegacy answers, within the call, the input a tool of a legacy session
// asked for (res.Input): each request goes to the client as its own
// request (elicitation/create, sampling/createMessage, roots/list) and the
// tool runs again with the answers and its State, until it answers without
// asking, at most legacyInputRounds rounds. ctx is the call's, so that a
// client that never answers ends the call at its timeout.
func (s *Server) askLegacy(ctx context.Context, ss *mcp.ServerSession, conv *conversation, name string, args json.RawMessage, exec *tools.Exec, res tools.Result) tools.Result {
	for round := 0; res.Input != nil; round++ {
		if round == legacyInputRounds {
			return toolFailure(fmt.Sprintf("tool %s asked for input %d times in one call, the most it may", name, legacyInputRounds))
		}
		requests, failed, err := s.inputRequests(conv, name, exec.Capabilities, res.Input)
		if err != nil {
			var je *jsonrpc.Error
			if !errors.As(err, &je) {
				return toolFailure(err.Error())
			}
			return tools.Result{IsError: true, Protocol: &tools.ProtocolError{Code: je.Code, Message: je.Message, Data: je.Data}}
		}
		if requests == nil {
			return failed
		}
		responses := make(map[string]json.RawMessage, len(requests))
		for key, r := range requests {
			answer, err := ask(ctx, ss, r)
			if err != nil {
				return toolFailure(fmt.Sprintf("tool %s asked the client for input %q: %v", name, key, err))
			}
			if responses[key], err = json.Marshal(answer); err != nil {
				return toolFailure(fmt.Sprintf("tool %s asked the client for input %q: %v", name, key, err))
			}
		}
		exec.Responses, exec.State = responses, res.Input.State
		res = s.reg.Execute(ctx, name, args, exec)
	}
	return res
}

// ask sends one input request to a legacy session and returns its answer.
func ask(ctx context.Context, ss *mcp.ServerSession, r mcp.InputRequest) (any, error) {
	switch p := r.(type) {
	case *mcp.ElicitParams:
		return ss.Elicit(ctx, p)
	case *mcp.CreateMessageWithToolsParams:
		return ss.CreateMessageWithTools(ctx, p)
	case *mcp.ListRootsParams:
		return ss.ListRoots(ctx, p)
	}
	return nil, fmt.Errorf("no way to send %T", r)
}

// toolFailure is a call's failure result `Error: <message>`.
func toolFailure(message string) tools.Result {
	return tools.Result{IsError: true, Content: []tools.Block{tools.TextBlock("Error: " + message)},
		Error: &tools.Failure{Message: message, Info: &tools.ErrorInfo{Name: "ToolInputError", Code: "INPUT_FAILED"}}}
}

// capabilitiesOf returns the capabilities the request's client declared,
// as JSON, or nil: a 2026-07-28 request's own
// `io.modelcontextprotocol/clientCapabilities`, as sent; a legacy session's
// from its initialize, where the SDK keeps "roots" only as its listChanged
// flag, so that roots count as declared only with listChanged.
func capabilitiesOf(req *mcp.CallToolRequest) json.RawMessage {
	if req.Params != nil {
		if v, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities]; ok {
			if b, err := json.Marshal(v); err == nil {
				return b
			}
		}
	}
	caps := req.ClientCapabilities()
	if caps == nil {
		return nil
	}
	b, err := json.Marshal(caps)
	if err != nil {
		return nil
	}
	if caps.RootsV2 == nil && !caps.Roots.ListChanged {
		var fields map[string]json.RawMessage
		if json.Unmarshal(b, &fields) == nil {
			delete(fields, "roots")
			b, _ = json.Marshal(fields)
		}
	}
	return b
}

// declares reports whether capabilities (capabilitiesOf) name capability.
func declares(capabilities json.RawMessage, capability string) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(capabilities, &fields) != nil {
		return false
	}
	v, ok := fields[capability]
	return ok && string(v) != "null"
}
