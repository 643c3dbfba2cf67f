package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// parseParamsByStructs is the earlier parseParams, which decoded the schema
// into structs with encoding/json; parseParams must read every schema as
// it did.
func parseParamsByStructs(raw json.RawMessage) (paramSchema, error) {
	var ps paramSchema
	if len(bytes.TrimSpace(raw)) == 0 {
		return ps, nil
	}
	var top struct {
		Properties           json.RawMessage `json:"properties"`
		Required             []string        `json:"required"`
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return ps, fmt.Errorf("parameters schema: %w", err)
	}
	ps.required = top.Required
	ps.open = len(top.AdditionalProperties) > 0 && string(top.AdditionalProperties) != "false" && string(top.AdditionalProperties) != "null"
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

// TestParseParamsReadsAsStructDecoding: the token reader accepts and
// rejects the same schemas as struct decoding and reads the same
// properties, types and required keys, including case-folded and repeated
// keys, null members and numbers no float64 holds.
func TestParseParamsReadsAsStructDecoding(t *testing.T) {
	for _, raw := range []string{
		``, `  `, `null`, `{}`, `[]`, `"s"`, `1`, `true`, `{`, `{"a":}`, `{} x`,
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"]},"c":{}},"required":["a"]}`,
		`{"properties":{"z":{"type":"number","maximum":1e400,"description":"x"},"a":{"description":"d","type":"boolean"}}}`,
		`{"Properties":{"a":{"TYPE":"string"}},"REQUIRED":["a","b"]}`,
		`{"properties":{"a":{"type":"string"}},"properties":{"b":{"type":"integer"}}}`,
		`{"properties":{"a":{"type":"string","type":"integer"}}}`,
		`{"properties":null}`, `{"properties":[]}`, `{"properties":"x"}`, `{"properties":{}}`,
		`{"properties":{"a":null}}`, `{"properties":{"a":[]}}`, `{"properties":{"a":"x"}}`, `{"properties":{"a":1}}`,
		`{"properties":{"a":{"type":null}}}`, `{"properties":{"a":{"type":1}}}`, `{"properties":{"a":{"type":[1]}}}`,
		`{"properties":{"a":{"type":{"x":1}}}}`, `{"properties":{"a":{"items":{"type":"string"},"type":"array"}}}`,
		`{"required":null}`, `{"required":["a"],"required":null}`, `{"required":"a"}`, `{"required":[1]}`, `{"required":{}}`,
		`{"x":[1,{"y":[2,3]},"z"],"properties":{"q\u0041":{"type":"string"}},"anyOf":[{"required":["x"]}]}`,
		`{"prop\u0065rties":{"a":{"type":"string"}}}`,
		`{"additionalProperties":false}`, `{"additionalProperties":true}`, `{"additionalProperties":null}`,
		`{"ADDITIONALPROPERTIES":{"type":"string"}}`, `{"additionalProperties":true,"additionalProperties":false}`,
	} {
		t.Run(raw, func(t *testing.T) {
			want, wantErr := parseParamsByStructs(json.RawMessage(raw))
			got, err := parseParams(json.RawMessage(raw))
			assert.Equal(t, wantErr != nil, err != nil, "error: %v, want %v", err, wantErr)
			if wantErr == nil {
				assert.Equal(t, want, got)
			}
		})
	}
}

// FuzzParseParamsReadsAsStructDecoding checks the same agreement on
// arbitrary input (`go test -fuzz ParseParams ./plugins/tools`).
func FuzzParseParamsReadsAsStructDecoding(f *testing.F) {
	f.Add(`{"properties":{"a":{"type":"string"},"b":{"type":["integer","null"]}},"required":["a"]}`)
	f.Add(`{"PROPERTIES":{"a":null},"required":null}`)
	f.Fuzz(func(t *testing.T, raw string) {
		want, wantErr := parseParamsByStructs(json.RawMessage(raw))
		got, err := parseParams(json.RawMessage(raw))
		if (wantErr != nil) != (err != nil) {
			t.Fatalf("%q: error %v, struct decoding's %v", raw, err, wantErr)
		}
		if wantErr == nil {
			assert.Equal(t, want, got)
		}
	})
}
