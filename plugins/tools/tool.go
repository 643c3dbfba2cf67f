package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Tool is one model-facing tool (contract §5.1).
type Tool struct {
	// Name is the tool's name as the model calls it, e.g. "read".
	Name string
	// Description is sent to the model verbatim.
	Description string
	// Parameters is the JSON Schema of the arguments: an open object
	// {"type":"object","properties":{...},"required":[...]}, sent to the
	// model byte for byte. Validation (contract §5.3) reads the declared
	// properties in order, their "type", and "required".
	Parameters json.RawMessage
	// Output is the JSON Schema of the structured value; the value of every
	// successful call is checked against it (contract §5.2 step 7). Nil
	// means unchecked.
	Output json.RawMessage
	// ReadOnly and Destructive are hints for clients (MCP tool annotations):
	// a read-only tool does not change its environment; a destructive one may
	// overwrite or remove data.
	ReadOnly, Destructive bool
	// Execute runs the call with validated arguments and returns the
	// structured value. It must honour ctx. Required.
	Execute func(ctx context.Context, args Args, exec *Exec) (any, error)
	// Render turns a successful call's value into content blocks. Nil
	// renders the value as indented JSON text.
	Render func(args Args, value any) []Block
	// Meta computes a top-level call's metadata (e.g. diffs). Optional.
	Meta func(args Args, value any) any
	// Summary returns a successful call's summary: a small value, never
	// file content, that the MCP front end sends as structuredContent
	// (contract §5.4a [D20]). It is the tool's [Summarizer], beside its
	// renderer. Nil means the call has no summary: no structuredContent and
	// no outputSchema over MCP.
	Summary Summarizer
	// SummarySchema is the JSON Schema of every value Summary returns,
	// advertised as the tool's MCP outputSchema (contract §5.4a). It is not
	// checked at run time; the tool's tests check its summaries against it.
	// Required when Summary is set.
	SummarySchema json.RawMessage
	// ConcurrencySafe reports whether a call with these (schema-valid)
	// arguments may run in parallel with others (contract §5.5). Nil means
	// exclusive.
	ConcurrencySafe func(args Args) bool
}

// paramSchema is what validation needs from Tool.Parameters.
type paramSchema struct {
	props    []property // declaration order
	required []string
}

type property struct {
	name  string
	types []string // JSON types; empty means any
}

// parseParams reads the declared properties in order. It fails when the
// schema is not a JSON object or properties is malformed.
func parseParams(raw json.RawMessage) (paramSchema, error) {
	var ps paramSchema
	if len(bytes.TrimSpace(raw)) == 0 {
		return ps, nil
	}
	var top struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return ps, fmt.Errorf("parameters schema: %w", err)
	}
	ps.required = top.Required
	if len(top.Properties) == 0 {
		return ps, nil
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ps, errors.New("parameters schema: properties must be an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ps, fmt.Errorf("parameters schema: %w", err)
		}
		name, _ := tok.(string)
		var def struct {
			Type json.RawMessage `json:"type"`
		}
		if err := dec.Decode(&def); err != nil {
			return ps, fmt.Errorf("parameters schema: property %q: %w", name, err)
		}
		p := property{name: name}
		if len(def.Type) > 0 {
			var one string
			if json.Unmarshal(def.Type, &one) == nil {
				p.types = []string{one}
			} else if err := json.Unmarshal(def.Type, &p.types); err != nil {
				return ps, fmt.Errorf("parameters schema: property %q: type must be a string or a list of strings", name)
			}
		}
		ps.props = append(ps.props, p)
	}
	return ps, nil
}
