package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"github.com/dsh-go/dsh/host"
)

// Decode turns raw into p's config type and validates it with the plugin's
// own Validate (host §1.6, §3.7 "Where decoding lives"); it is the decoder
// Load uses for every entry, exported for plugins' tests and for front ends
// that mount a plugin from a raw mapping. raw may be:
//   - nil: the default config;
//   - a value (or pointer) of the plugin's config type: validated as is;
//   - a map[string]any (from YAML, JSON, TOML, env or flags): decoded
//     strictly onto the plugin's defaults, keys matched by each field's
//     `json` tag exactly.
//
// Strict means an unknown key, a value of the wrong type (a string or 2.5 for
// an integer field) or a non-mapping is an issue; nothing is converted
// silently. Integral floats (7.0, as JSON decodes 7) fill integer fields; a
// string fills a time.Duration field through time.ParseDuration.
//
// A field whose value cannot be decoded is left at its zero value and
// Validate still runs: when Validate reports an issue at that same key path,
// its wording replaces the decoder's, unless the config type implements
// DecoderTyped. So a plugin names its own message for
// a bad value in Validate alone (toolfs's `toolfs: readLimit must be a
// positive integer` covers 2.5 and "x" as well as 0, contract §6.1).
//
// The result is a value of the config type; the error is a *host.ConfigError
// listing every issue with its key path, sorted by path.
func Decode(p *host.Plugin, raw any) (any, error) {
	switch raw.(type) {
	case nil:
		return p.CheckConfig(nil)
	case map[string]any:
	default:
		rv := reflect.ValueOf(raw)
		if rv.Type() == p.ConfigType() || (rv.Kind() == reflect.Pointer && rv.Type().Elem() == p.ConfigType()) {
			return p.CheckConfig(raw)
		}
		return nil, &host.ConfigError{Plugin: p.Name(), Issues: []host.ConfigIssue{{Problem: "expected a mapping, got " + describe(raw)}}}
	}
	return decodeWith(p, func(dc *mapstructure.DecoderConfig) error {
		d, err := mapstructure.NewDecoder(dc)
		if err != nil {
			return err
		}
		return d.Decode(raw)
	})
}

// decodeWith decodes onto p's defaults with run, which feeds the strict
// decoder config it is given (mapstructure directly, or koanf's
// UnmarshalWithConf), then validates as Decode says.
func decodeWith(p *host.Plugin, run func(*mapstructure.DecoderConfig) error) (any, error) {
	out := reflect.New(p.ConfigType())
	out.Elem().Set(reflect.ValueOf(p.DefaultConfig()))
	err := run(strictDecoder(out.Interface()))
	if err == nil {
		return p.CheckConfig(out.Elem().Interface())
	}
	issues := decodeIssues(err)
	for _, is := range issues {
		zeroAt(out.Elem(), is.Path)
	}
	if _, typed := out.Interface().(DecoderTyped); typed {
		return nil, &host.ConfigError{Plugin: p.Name(), Issues: issues}
	}
	var ce *host.ConfigError
	if _, verr := p.CheckConfig(out.Elem().Interface()); errors.As(verr, &ce) {
		for i := range issues {
			for _, v := range ce.Issues {
				if v.Path != "" && v.Path == issues[i].Path {
					issues[i].Problem = v.Problem
				}
			}
		}
	}
	return nil, &host.ConfigError{Plugin: p.Name(), Issues: issues}
}

// DecoderTyped is implemented (on the pointer) by a plugin config type
// whose wrong types are reported in the strict decoder's words (`expected a
// string, got list [a]`) even where its Validate reports an issue at the
// same key path: fssandbox, whose spec says "Wrong types are the strict
// decoder's errors" (sandbox.md §2.2). For every other type Validate's
// wording wins (Decode). The method is a marker; it is never called.
type DecoderTyped interface{ DecoderTyped() }

// strictDecoder is the one decoder config of every plugin section: json
// tags matched exactly, unknown keys an error (koanf ignores its output
// argument's type, so Result is set here, host §3.7), and strictHook for
// every conversion.
func strictDecoder(result any) *mapstructure.DecoderConfig {
	return &mapstructure.DecoderConfig{
		Result:      result,
		TagName:     "json",
		ErrorUnused: true,
		MatchName:   func(mapKey, fieldName string) bool { return mapKey == fieldName },
		DecodeHook:  mapstructure.DecodeHookFuncType(strictHook),
	}
}

// decodeIssues flattens mapstructure's joined errors into issues, one per
// key path, sorted by path.
func decodeIssues(err error) []host.ConfigIssue {
	var issues []host.ConfigIssue
	var walk func(error)
	walk = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		de, ok := err.(*mapstructure.DecodeError)
		if !ok {
			// mapstructure wraps a joined error in one fmt.Errorf layer;
			// errors.As would stop at the first issue inside it.
			if inner := errors.Unwrap(err); inner != nil {
				walk(inner)
				return
			}
			issues = append(issues, host.ConfigIssue{Problem: err.Error()})
			return
		}
		inner := de.Unwrap()
		if j, ok := inner.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		msg := ""
		if inner != nil {
			msg = inner.Error()
		}
		if keys, ok := strings.CutPrefix(msg, "has invalid keys: "); ok {
			for _, k := range strings.Split(keys, ", ") {
				issues = append(issues, host.ConfigIssue{Path: joinPath(de.Name(), k), Problem: "unknown key"})
			}
			return
		}
		issues = append(issues, host.ConfigIssue{Path: de.Name(), Problem: msg})
	}
	walk(err)
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].Path < issues[j].Path })
	return issues
}

// zeroAt sets the field at a decoder key path (`a`, `a.b`, `list[1].depth`,
// json tag names) to its zero value; a path that names no field (an unknown
// key) changes nothing.
func zeroAt(v reflect.Value, path string) {
	if path == "" {
		return
	}
	for seg := range strings.SplitSeq(strings.ReplaceAll(path, "[", ".["), ".") {
		if idx, ok := strings.CutPrefix(seg, "["); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if err != nil || (v.Kind() != reflect.Slice && v.Kind() != reflect.Array) || n < 0 || n >= v.Len() {
				return
			}
			v = v.Index(n)
			continue
		}
		if v.Kind() != reflect.Struct {
			return
		}
		f, ok := fieldByTag(v.Type(), seg)
		if !ok {
			return
		}
		v = v.FieldByIndex(f.Index)
	}
	if v.CanSet() {
		v.SetZero()
	}
}

// fieldByTag finds the exported field whose json tag name (or Go name, when
// untagged) is key.
func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for f := range t.Fields() {
		if f.IsExported() && tagName(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// tagName is a field's config key: its json tag name, else its Go name;
// "-" for a field the decoder skips.
func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		name = f.Name
	}
	return name
}

func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

var durationType = reflect.TypeFor[time.Duration]()

// strictHook refuses every conversion mapstructure would do silently
// (float→int truncation among them) and says what was expected.
func strictHook(from, to reflect.Type, data any) (any, error) {
	if data == nil {
		return data, nil
	}
	v := reflect.ValueOf(data)
	if to == durationType {
		switch from.Kind() {
		case reflect.String:
			d, err := time.ParseDuration(v.String())
			if err != nil {
				return nil, fmt.Errorf("expected a duration such as \"5s\", got %s", describe(data))
			}
			return d, nil
		case reflect.Int, reflect.Int64, reflect.Int32:
			return data, nil
		}
		return nil, fmt.Errorf("expected a duration such as \"5s\", got %s", describe(data))
	}
	switch to.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return integerFor(to, v, data)
	case reflect.Float32, reflect.Float64:
		if isNumberKind(from.Kind()) {
			return data, nil
		}
		return nil, fmt.Errorf("expected a number, got %s", describe(data))
	case reflect.String:
		if from.Kind() == reflect.String {
			return data, nil
		}
		return nil, fmt.Errorf("expected a string, got %s", describe(data))
	case reflect.Bool:
		if from.Kind() == reflect.Bool {
			return data, nil
		}
		return nil, fmt.Errorf("expected a boolean, got %s", describe(data))
	case reflect.Struct, reflect.Map:
		if from.Kind() == reflect.Map || from.Kind() == reflect.Struct {
			return data, nil
		}
		if from.Kind() == reflect.String {
			// A string where a mapping belongs may be a secret put where
			// its source belongs (an mcp token): never echoed.
			return nil, errors.New("expected a mapping, got a string")
		}
		return nil, fmt.Errorf("expected a mapping, got %s", describe(data))
	case reflect.Slice, reflect.Array:
		if from.Kind() == reflect.Slice || from.Kind() == reflect.Array {
			return data, nil
		}
		return nil, fmt.Errorf("expected a list, got %s", describe(data))
	}
	return data, nil
}

func integerFor(to reflect.Type, v reflect.Value, data any) (any, error) {
	out := reflect.New(to).Elem()
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i := v.Int()
		if isUnsigned(to.Kind()) {
			if i < 0 || out.OverflowUint(uint64(i)) {
				return nil, fmt.Errorf("%d is out of range", i)
			}
			return uint64(i), nil
		}
		if out.OverflowInt(i) {
			return nil, fmt.Errorf("%d is out of range", i)
		}
		return i, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := v.Uint()
		if (isUnsigned(to.Kind()) && out.OverflowUint(u)) || (!isUnsigned(to.Kind()) && (u > math.MaxInt64 || out.OverflowInt(int64(u)))) {
			return nil, fmt.Errorf("%d is out of range", u)
		}
		return u, nil
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) || f > math.MaxInt64 || f < math.MinInt64 {
			return nil, fmt.Errorf("expected an integer, got %s", describe(data))
		}
		return integerFor(to, reflect.ValueOf(int64(f)), int64(f))
	}
	return nil, fmt.Errorf("expected an integer, got %s", describe(data))
}

func isUnsigned(k reflect.Kind) bool {
	switch k {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func isNumberKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
