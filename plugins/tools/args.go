package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Args are a call's decoded arguments: a JSON object. After validation every
// declared property has its schema type: string, float64 for "number" and
// "integer", bool, []any, map[string]any, or nil for JSON null where null is
// allowed. The only undeclared keys are a tool's [Tool.ExtraKeys] (and any
// key, for a schema open to them), kept as decoded (numbers as
// json.Number).
type Args map[string]any

// Has reports whether key is present, whatever its value (null included).
func (a Args) Has(key string) bool {
	_, ok := a[key]
	return ok
}

// String returns the string value of key, and false when absent or not a
// string.
func (a Args) String(key string) (string, bool) {
	s, ok := a[key].(string)
	return s, ok
}

// Number returns the numeric value of key, and false when absent or not a
// number.
func (a Args) Number(key string) (float64, bool) {
	switch v := a[key].(type) {
	case float64:
		return v, true
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		return f, err == nil && !math.IsInf(f, 0)
	}
	return 0, false
}

// Bool returns the boolean value of key, and false when absent or not a
// boolean.
func (a Args) Bool(key string) (value, ok bool) {
	value, ok = a[key].(bool)
	return value, ok
}

// decodeArgs parses raw JSON arguments. Empty raw (no arguments at all)
// means {}. Numbers decode as json.Number so one out-of-range number does not
// reject the payload (contract §5.3 Note). A lone surrogate escape decodes to
// U+FFFD, as encoding/json does (contract §5.2 step 1).
func decodeArgs(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the arguments")
	}
	return v, nil
}

// validate checks decoded arguments against ps (contract §5.3) and returns
// the typed Args, or the violations in contract order: every missing
// required key in `required` order, then every present declared key of the
// wrong type in declaration order, then every key neither declared nor in
// extra, in byte order [D22], followed by the list of the declared keys.
func (ps paramSchema) validate(v any, extra []string) (Args, []string) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, []string{`"arguments" must be an object`}
	}
	var violations []string
	for _, key := range ps.required {
		if _, present := obj[key]; !present {
			violations = append(violations, `missing required property "`+key+`"`)
		}
	}
	args := make(Args, len(obj))
	for k, val := range obj {
		args[k] = val
	}
	for _, p := range ps.props {
		val, present := obj[p.name]
		if !present || len(p.types) == 0 {
			continue
		}
		typed, ok := coerce(val, p.types)
		if !ok {
			violations = append(violations, `"`+p.name+`" must be `+typePhrase(p.types))
			continue
		}
		args[p.name] = typed
	}
	if !ps.open {
		violations = ps.unknown(obj, extra, violations)
	}
	if len(violations) > 0 {
		return nil, violations
	}
	return args, nil
}

// unknown appends to violations one `unknown property "<k>"` per key of obj
// that is neither declared (a property, or a required key) nor in extra, in
// byte order, and then `known properties: <the properties in schema
// order>` (`none` for a schema without any) when there was one (contract
// §5.3 [D22]).
func (ps paramSchema) unknown(obj map[string]any, extra []string, violations []string) []string {
	var keys []string
	for k := range obj {
		declared := slices.ContainsFunc(ps.props, func(p property) bool { return p.name == k })
		if !declared && !slices.Contains(ps.required, k) && !slices.Contains(extra, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return violations
	}
	slices.Sort(keys)
	for _, k := range keys {
		violations = append(violations, `unknown property "`+k+`"`)
	}
	if len(ps.props) == 0 {
		return append(violations, "known properties: none")
	}
	names := make([]string, len(ps.props))
	for i, p := range ps.props {
		names[i] = p.name
	}
	return append(violations, "known properties: "+strings.Join(names, ", "))
}

// coerce checks val against the allowed JSON types and returns it typed.
func coerce(val any, types []string) (any, bool) {
	for _, t := range types {
		switch t {
		case "string":
			if s, ok := val.(string); ok {
				return s, true
			}
		case "number", "integer":
			n, ok := val.(json.Number)
			if !ok {
				continue
			}
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil || math.IsInf(f, 0) {
				continue
			}
			if t == "integer" && f != math.Trunc(f) {
				continue
			}
			return f, true
		case "boolean":
			if b, ok := val.(bool); ok {
				return b, true
			}
		case "object":
			if m, ok := val.(map[string]any); ok {
				return m, true
			}
		case "array":
			if a, ok := val.([]any); ok {
				return a, true
			}
		case "null":
			if val == nil {
				return nil, true
			}
		}
	}
	return nil, false
}

var typeArticles = map[string]string{
	"string": "a string", "number": "a number", "integer": "an integer", "boolean": "a boolean",
	"object": "an object", "array": "an array", "null": "null",
}

// typePhrase is `a string`, `a number`, ... or `a string or null`.
func typePhrase(types []string) string {
	parts := make([]string, 0, len(types))
	for _, t := range types {
		if a, ok := typeArticles[t]; ok {
			parts = append(parts, a)
		} else {
			parts = append(parts, "of type "+t)
		}
	}
	return strings.Join(slices.Compact(parts), " or ")
}
