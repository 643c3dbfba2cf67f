//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/dsh-go/dsh/plugins/tools"
)

// elicit is an elicitation/create request of message and schema.
func elicit(message, schema string) tools.InputRequest {
	p, _ := json.Marshal(map[string]any{"mode": "form", "message": message, "requestedSchema": json.RawMessage(schema)})
	return tools.InputRequest{Method: tools.InputElicit, Params: p}
}

// sample is a sampling/createMessage request of one user message.
func sample(prompt string, maxTokens int) tools.InputRequest {
	p, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": prompt}}}, "maxTokens": maxTokens})
	return tools.InputRequest{Method: tools.InputSample, Params: p}
}

// roots is a roots/list request.
var roots = tools.InputRequest{Method: tools.InputRoots, Params: json.RawMessage(`{}`)}

// The schemas the fixtures ask for.
const (
	nameSchema    = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	confirmSchema = `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`
)

// accepted returns the content of the accepted elicitation answered under
// key, or nil.
func accepted(exec *tools.Exec, key string) map[string]any {
	var r struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if json.Unmarshal(exec.Responses[key], &r) != nil || r.Action != "accept" {
		return nil
	}
	if r.Content == nil {
		r.Content = map[string]any{}
	}
	return r.Content
}

// elicited returns the action and content of the elicitation answered under
// key, and false when there is none.
func elicited(exec *tools.Exec, key string) (string, string, bool) {
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(exec.Responses[key], &r) != nil || r.Action == "" {
		return "", "", false
	}
	return r.Action, string(r.Content), true
}

// sampled returns the first text of the sampling answered under key (its
// content one block or a list of them), and false when there is none.
func sampled(exec *tools.Exec, key string) (string, bool) {
	var r struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(exec.Responses[key], &r) != nil || r.Role == "" {
		return "", false
	}
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var list []block
	var one block
	if json.Unmarshal(r.Content, &one) == nil && one.Type != "" {
		list = []block{one}
	} else {
		_ = json.Unmarshal(r.Content, &list)
	}
	for _, b := range list {
		if b.Type == "text" {
			return b.Text, true
		}
	}
	return "(non-text response)", true
}

// listedRoots returns the URIs of the roots answered under key, and false
// when there is no answer.
func listedRoots(exec *tools.Exec, key string) ([]string, bool) {
	var r struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	raw, ok := exec.Responses[key]
	if !ok || json.Unmarshal(raw, &r) != nil {
		return nil, false
	}
	uris := make([]string, 0, len(r.Roots))
	for _, root := range r.Roots {
		uris = append(uris, root.URI)
	}
	return uris, true
}

// ask is the error of a call that needs requests answered first.
func ask(state string, requests map[string]tools.InputRequest) error {
	return &tools.InputRequired{Requests: requests, State: state}
}

// inputTools are the fixtures that ask their client for input: within the
// call for a legacy session (the SDK asks and calls again), as an
// input-required result at 2026-07-28.
func (f *fixtures) inputTools() []tools.Tool {
	return []tools.Tool{
		fixture("test_sampling", "Sampling", "Asks the client's model to complete prompt.", `{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}`,
			func(_ context.Context, args tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if t, ok := sampled(exec, "completion"); ok {
					return text("LLM response: %s", t), nil
				}
				prompt, _ := args.String("prompt")
				return nil, ask("", map[string]tools.InputRequest{"completion": sample(prompt, 100)})
			}),
		fixture("test_elicitation", "Elicitation", "Asks the user for a username, showing message.", `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`,
			func(_ context.Context, args tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if action, content, ok := elicited(exec, "username"); ok {
					return text("Elicitation result: action=%s, content=%s", action, content), nil
				}
				message, _ := args.String("message")
				return nil, ask("", map[string]tools.InputRequest{"username": elicit(message,
					`{"type":"object","properties":{"username":{"type":"string","description":"Your preferred username"}},"required":["username"]}`)})
			}),
		fixture("test_elicitation_sep1034_defaults", "Elicitation defaults", "Asks the user for a form whose fields have defaults (SEP-1034).", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if action, content, ok := elicited(exec, "defaults"); ok {
					return text("Elicitation result: action=%s, content=%s", action, content), nil
				}
				return nil, ask("", map[string]tools.InputRequest{"defaults": elicit("Test defaults for primitives", `{"type":"object","properties":{`+
					`"name":{"type":"string","description":"User name","default":"John Doe"},`+
					`"age":{"type":"integer","description":"User age","default":30},`+
					`"score":{"type":"number","description":"User score","default":95.5},`+
					`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},`+
					`"verified":{"type":"boolean","description":"Verification status","default":true}}}`)})
			}),
		fixture("test_elicitation_sep1330_enums", "Elicitation enums", "Asks the user for a form of every enum shape (SEP-1330).", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if action, content, ok := elicited(exec, "enums"); ok {
					return text("Elicitation result: action=%s, content=%s", action, content), nil
				}
				titled := `[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]`
				return nil, ask("", map[string]tools.InputRequest{"enums": elicit("Test enum schemas", `{"type":"object","properties":{`+
					`"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},`+
					`"titledSingle":{"type":"string","oneOf":`+titled+`},`+
					`"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},`+
					`"untitledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},`+
					`"titledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"anyOf":`+titled+`}}}}`)})
			}),
		fixture("test_input_required_result_elicitation", "Input: elicitation", "Asks the user's name, then greets them.", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if c := accepted(exec, "user_name"); c != nil {
					if name, _ := c["name"].(string); name != "" {
						return text("Hello, %s!", name), nil
					}
				}
				return nil, ask("", map[string]tools.InputRequest{"user_name": elicit("What is your name?", nameSchema)})
			}),
		fixture("test_input_required_result_sampling", "Input: sampling", "Asks the client's model a question.", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if t, ok := sampled(exec, "capital_question"); ok {
					return text("Sampling response: %s", t), nil
				}
				return nil, ask("", map[string]tools.InputRequest{"capital_question": sample("What is the capital of France?", 100)})
			}),
		fixture("test_input_required_result_list_roots", "Input: roots", "Asks the client for its roots.", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if uris, ok := listedRoots(exec, "client_roots"); ok {
					return text("Client exposed %d root(s): %s", len(uris), strings.Join(uris, ", ")), nil
				}
				return nil, ask("", map[string]tools.InputRequest{"client_roots": roots})
			}),
		fixture("test_input_required_result_request_state", "Input: request state", "Asks for a confirmation and carries its own state to the retry.", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if accepted(exec, "confirm") != nil && exec.State == "request_state" {
					return text("state-ok: requestState received and confirmation accepted"), nil
				}
				return nil, ask("request_state", map[string]tools.InputRequest{"confirm": elicit("Please confirm", confirmSchema)})
			}),
		fixture("test_input_required_result_multiple_inputs", "Input: several", "Asks for a name, a completion and the roots in one round.", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				name, _ := accepted(exec, "user_name")["name"].(string)
				greeting, sampledOK := sampled(exec, "greeting")
				uris, rootsOK := listedRoots(exec, "client_roots")
				if name != "" && sampledOK && rootsOK {
					return text("%s %s — %d root(s) visible", greeting, name, len(uris)), nil
				}
				return nil, ask("multiple_inputs", map[string]tools.InputRequest{
					"user_name":    elicit("What is your name?", nameSchema),
					"greeting":     sample("Generate a greeting", 50),
					"client_roots": roots,
				})
			}),
		fixture("test_input_required_result_multi_round", "Input: two rounds", "Asks a name, then a colour, keeping the first answer in its state.", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				switch {
				case exec.State == "":
					return nil, ask("round=1", map[string]tools.InputRequest{"step1": elicit("Step 1: What is your name?", nameSchema)})
				case exec.State == "round=1":
					name, _ := accepted(exec, "step1")["name"].(string)
					if name == "" {
						name = "unknown"
					}
					return nil, ask("round=2;name="+name, map[string]tools.InputRequest{"step2": elicit("Step 2: What is your favorite color?",
						`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)})
				}
				color, _ := accepted(exec, "step2")["color"].(string)
				if color == "" {
					color = "unknown"
				}
				return text("Multi-round complete: %s likes %s", strings.TrimPrefix(exec.State, "round=2;name="), color), nil
			}),
		fixture("test_input_required_result_tampered_state", "Input: sealed state", "Asks for a confirmation; the server refuses a retry whose state was altered.", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if exec.State == "tampered_state" && accepted(exec, "confirm") != nil {
					return text("state-ok: requestState received and confirmation accepted"), nil
				}
				return nil, ask("tampered_state", map[string]tools.InputRequest{"confirm": elicit("Please confirm", confirmSchema)})
			}),
		fixture("test_input_required_result_capabilities", "Input: declared capabilities", "Asks only for the input kinds the client declared.", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if len(exec.Responses) > 0 {
					return text("Capability-aware input requests fulfilled"), nil
				}
				requests := map[string]tools.InputRequest{}
				if declared(exec, "elicitation") {
					requests["user_name"] = elicit("What is your name?", nameSchema)
				}
				if declared(exec, "sampling") {
					requests["greeting"] = sample("Generate a short greeting", 50)
				}
				if declared(exec, "roots") {
					requests["client_roots"] = roots
				}
				if len(requests) == 0 {
					return text("No declared client capability supports an in-band input request"), nil
				}
				return nil, ask("", requests)
			}),
	}
}
