package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Tool is one model-facing tool (contract §5.1).
type Tool struct {
	// Name is the tool's name as the model calls it, e.g. "read".
	Name string
	// Description is sent to the model verbatim.
	Description string
	// Title is the tool's name for people, which clients show (MCP's
	// title, conversations.md §4.3): a few words such as "Read file".
	Title string
	// Parameters is the JSON Schema of the arguments:
	// {"type":"object","properties":{...},"required":[...]}, kept byte for
	// byte (MCP clients get [Tool.InputSchema], the same object closed).
	// Validation (contract §5.3) reads the declared properties in order,
	// their "type", "required" and "additionalProperties": a key that is
	// not declared (nor in ExtraKeys) is refused [D22] unless
	// additionalProperties is given as something other than false or null.
	Parameters json.RawMessage
	// ExtraKeys are argument keys the tool checks itself although
	// Parameters does not declare them (contract §5.3: the escalation keys
	// of write and edit, §6.8): they are not refused as unknown and not
	// listed among the known properties.
	ExtraKeys []string
	// Output is the JSON Schema of the structured value; the value of every
	// successful call is checked against it (contract §5.2 step 7). Nil
	// means unchecked.
	Output json.RawMessage
	// ReadOnly and Destructive are hints for clients (MCP tool annotations):
	// a read-only tool does not change its environment; a destructive one may
	// overwrite or remove data.
	ReadOnly, Destructive bool
	// OpenWorld says the tool reaches beyond the workspace and the fs
	// seam (MCP's openWorldHint): an exec plugin's tools, which run with the
	// server's privileges. The filesystem tools leave it false.
	OpenWorld bool
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
	// open is set when the schema's additionalProperties is given and is
	// neither false nor null: undeclared keys are then accepted.
	open bool
}

type property struct {
	name  string
	types []string // JSON types; empty means any
}

// parseParams reads the declared properties in order. It fails when the
// schema is not a JSON object (null reads as no properties) or properties
// is malformed.
//
// Keys match as encoding/json matches a struct's fields (case-insensitively,
// the last of duplicates winning), and "required" and each "type" decode
// with encoding/json; the rest of a schema that json.Valid accepted is
// walked by jsonWalk, not decoded: decoding six small schemas into structs
// was a visible share of a one-shot `dshhost call`'s own start-up work.
// TestParseParamsReadsAsStructDecoding holds it to what struct decoding
// reads.
func parseParams(raw json.RawMessage) (paramSchema, error) {
	var ps paramSchema
	if len(bytes.TrimSpace(raw)) == 0 {
		return ps, nil
	}
	if !json.Valid(raw) {
		var v any
		return ps, fmt.Errorf("parameters schema: %w", json.Unmarshal(raw, &v))
	}
	w := &jsonWalk{b: raw}
	if w.peek() == 'n' {
		return ps, nil // null
	}
	if w.peek() != '{' {
		return ps, errors.New("parameters schema: not a JSON object")
	}
	var properties []byte
	var err error
	w.members(func(key string) {
		v := w.value()
		switch {
		case strings.EqualFold(key, "properties"):
			properties = v
		case strings.EqualFold(key, "required"):
			if e := json.Unmarshal(v, &ps.required); e != nil && err == nil {
				err = fmt.Errorf("parameters schema: required: %w", e)
			}
		case strings.EqualFold(key, "additionalProperties"):
			ps.open = string(v) != "false" && string(v) != "null"
		}
	})
	if err != nil || properties == nil {
		return ps, err
	}
	w = &jsonWalk{b: properties}
	if w.peek() != '{' {
		return ps, errors.New("parameters schema: properties must be an object")
	}
	w.members(func(name string) {
		if err != nil {
			w.value()
			return
		}
		p := property{name: name}
		var typ []byte
		switch w.peek() {
		case 'n': // null: no constraint
			w.value()
		case '{':
			w.members(func(key string) {
				if v := w.value(); strings.EqualFold(key, "type") {
					typ = v
				}
			})
		default:
			w.value()
			err = fmt.Errorf("parameters schema: property %q: not a JSON object", name)
			return
		}
		switch {
		case typ == nil:
		case typ[0] == '"':
			p.types = []string{unquote(typ)}
		case typ[0] == 'n':
			p.types = []string{""} // null, as decoding it into a string reads it
		case json.Unmarshal(typ, &p.types) != nil:
			err = fmt.Errorf("parameters schema: property %q: type must be a string or a list of strings", name)
			return
		}
		ps.props = append(ps.props, p)
	})
	return ps, err
}

// jsonWalk steps through a JSON text that json.Valid has accepted, without
// decoding it: it only finds where values and object members are.
type jsonWalk struct {
	b []byte
	i int
}

func (w *jsonWalk) space() {
	for w.i < len(w.b) && (w.b[w.i] == ' ' || w.b[w.i] == '\t' || w.b[w.i] == '\n' || w.b[w.i] == '\r') {
		w.i++
	}
}

// peek returns the first byte of the next value.
func (w *jsonWalk) peek() byte {
	w.space()
	return w.b[w.i]
}

// value returns the raw text of the next value and steps past it.
func (w *jsonWalk) value() []byte {
	w.space()
	start := w.i
	switch w.b[w.i] {
	case '"':
		w.i = stringEnd(w.b, w.i)
	case '{', '[':
		for depth := 0; ; {
			switch w.b[w.i] {
			case '"':
				w.i = stringEnd(w.b, w.i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			w.i++
			if depth == 0 {
				break
			}
		}
	default: // a number, true, false or null
		for w.i < len(w.b) && !strings.ContainsRune(" \t\r\n,}]", rune(w.b[w.i])) {
			w.i++
		}
	}
	return w.b[start:w.i]
}

// members steps through the object at the walk's position, calling visit
// with each member's key (unquoted as encoding/json does); visit must step
// past the member's value.
func (w *jsonWalk) members(visit func(key string)) {
	w.space()
	w.i++ // {
	for {
		w.space()
		switch w.b[w.i] {
		case '}':
			w.i++
			return
		case ',':
			w.i++
		}
		key := w.value()
		w.space()
		w.i++ // :
		visit(unquote(key))
	}
}

// stringEnd returns the index just past the string whose opening quote is
// at b[i].
func stringEnd(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// unquote returns the value of a JSON string literal: directly when it is
// plain ASCII, else as encoding/json reads it (escapes, invalid UTF-8 as
// U+FFFD).
func unquote(lit []byte) string {
	plain := true
	for _, c := range lit {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(lit[1 : len(lit)-1])
	}
	var s string
	_ = json.Unmarshal(lit, &s)
	return s
}

// closedObject is the input schema of a tool whose Parameters are empty.
var closedObject = json.RawMessage(`{"type":"object","additionalProperties":false}`)

// InputSchema returns the schema MCP clients get as the tool's inputSchema
// (contract §5.3 [D22]): Parameters with `"additionalProperties":false`
// added as its last member, so that clients see the root as closed as the
// registry holds it; {"type":"object","additionalProperties":false} for
// empty or null Parameters. Parameters that give additionalProperties
// themselves, or are not a JSON object, are returned unchanged.
func (t Tool) InputSchema() json.RawMessage {
	raw := bytes.TrimSpace(t.Parameters)
	if len(raw) == 0 || string(raw) == "null" {
		return closedObject
	}
	if raw[0] != '{' || !json.Valid(raw) {
		return t.Parameters
	}
	w := &jsonWalk{b: raw}
	given, empty := false, true
	w.members(func(key string) {
		w.value()
		empty = false
		given = given || strings.EqualFold(key, "additionalProperties")
	})
	switch {
	case given:
		return t.Parameters
	case empty:
		return json.RawMessage(`{"additionalProperties":false}`)
	}
	out := make(json.RawMessage, 0, len(raw)+len(`,"additionalProperties":false`))
	out = append(out, raw[:len(raw)-1]...)
	return append(out, `,"additionalProperties":false}`...)
}
