package tools

import (
	"encoding/json"
	"strings"
)

// The methods of an input request (MCP's multi round-trip requests,
// SEP-2322): the user's answer to a form, a completion from the client's
// model, the client's roots.
const (
	InputElicit = "elicitation/create"
	InputSample = "sampling/createMessage"
	InputRoots  = "roots/list"
)

// InputRequest is one request a call needs its client to answer before it
// can finish: Method is one of InputElicit, InputSample and InputRoots, and
// Params that request's params (a JSON object; MCP's ElicitRequestParams,
// CreateMessageRequestParams, ListRootsRequestParams).
type InputRequest struct {
	Method string
	Params json.RawMessage
}

// InputRequired ends a call that needs its client's input first: a tool
// returns it as its error, and the front end answers the call with the
// requests (MCP: an input-required result) or, for a client that cannot
// take one, asks them within the call; either way the call comes again
// with the answers in [Exec.Responses], keyed as Requests is, and State in
// [Exec.State]. A body that returns it must have changed nothing: the call
// runs again from the start.
//
// State is the tool's own, at most 4 KiB: the front end seals it (bound to
// the conversation, the tool and its arguments, valid 5 minutes), so the
// State a retry carries is one this tool returned for this very call. The
// Responses are the client's word only: a client may send answers to
// requests it was never sent, so a tool that must know it asked keeps that
// in State.
type InputRequired struct {
	Requests map[string]InputRequest
	State    string
}

// Error names the requests' methods.
func (e *InputRequired) Error() string {
	methods := make([]string, 0, len(e.Requests))
	for _, r := range e.Requests {
		methods = append(methods, r.Method)
	}
	return "the client's input is needed: " + strings.Join(methods, ", ")
}
