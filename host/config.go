package host

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
)

// Validator is implemented by config types that check themselves once
// decoded (Caddy's Validator). Validate runs before apply; an error makes the
// instance FAILED without running apply. It may return a *ConfigError to name
// key paths; any other error becomes one issue for the whole config.
type Validator interface {
	// Validate returns nil when the decoded config is usable, else a
	// *ConfigError naming each bad key path or any other error.
	Validate() error
}

// DecodeConfig turns raw into the plugin's config type C and validates it,
// all before apply (host §1.6, §3.7). raw may be:
//   - nil: the default config;
//   - a C or *C value: used as is;
//   - a map[string]any (from YAML, JSON, TOML, env or flags): decoded strictly
//     onto the default config, keys matched by each field's `json` tag exactly.
//
// Strict means an unknown key, a value of the wrong type (a string or 2.5 for
// an integer field) or a non-mapping is an issue; nothing is converted
// silently. Integral floats (7.0, as JSON decodes 7) fill integer fields; a
// string fills a time.Duration field through time.ParseDuration. The result is
// a C value; the error is a *ConfigError listing every issue with its key path.
//
// A top-level field may carry an `invalid:"..."` tag: a value of the wrong
// type for it is then reported with that text instead of the decoder's, so a
// plugin's documented load-time message (e.g. `toolfs: readLimit must be a
// positive integer`, contract §6.1) covers 2.5 and "x" as well as 0.
func (p *Plugin) DecodeConfig(raw any) (any, error) {
	cfg, issues := p.decode(raw)
	if len(issues) == 0 {
		issues = validateConfig(p.configType, cfg)
	}
	if len(issues) > 0 {
		return nil, &ConfigError{Plugin: p.name, Issues: issues}
	}
	return cfg, nil
}

func (p *Plugin) decode(raw any) (any, []ConfigIssue) {
	if raw == nil {
		return p.DefaultConfig(), nil
	}
	rv := reflect.ValueOf(raw)
	switch {
	case rv.Type() == p.configType:
		return raw, nil
	case rv.Kind() == reflect.Pointer && rv.Type().Elem() == p.configType:
		if rv.IsNil() {
			return p.DefaultConfig(), nil
		}
		return rv.Elem().Interface(), nil
	}
	if _, ok := raw.(map[string]any); !ok {
		return nil, []ConfigIssue{{Problem: "expected a mapping, got " + describeValue(raw)}}
	}
	out := reflect.New(p.configType)
	out.Elem().Set(reflect.ValueOf(p.DefaultConfig()))
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:      out.Interface(),
		TagName:     "json",
		ErrorUnused: true,
		MatchName:   func(mapKey, fieldName string) bool { return mapKey == fieldName },
		DecodeHook:  mapstructure.DecodeHookFuncType(strictHook),
	})
	if err != nil {
		return nil, []ConfigIssue{{Problem: err.Error()}}
	}
	if err := dec.Decode(raw); err != nil {
		return nil, withFieldMessages(p.configType, decodeIssues(err))
	}
	return out.Elem().Interface(), nil
}

// validateConfig runs C's Validate, with a value or pointer receiver.
func validateConfig(t reflect.Type, cfg any) []ConfigIssue {
	ptr := reflect.New(t)
	ptr.Elem().Set(reflect.ValueOf(cfg))
	v, ok := ptr.Interface().(Validator)
	if !ok {
		return nil
	}
	err := v.Validate()
	if err == nil {
		return nil
	}
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce.Issues
	}
	return []ConfigIssue{{Problem: err.Error()}}
}

// decodeIssues flattens mapstructure's joined errors into issues, one per
// key path, sorted by path.
func decodeIssues(err error) []ConfigIssue {
	var issues []ConfigIssue
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
			issues = append(issues, ConfigIssue{Problem: err.Error()})
			return
		}
		inner := de.Unwrap()
		if inner != nil {
			if j, ok := inner.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					walk(e)
				}
				return
			}
		}
		msg := ""
		if inner != nil {
			msg = inner.Error()
		}
		if keys, ok := strings.CutPrefix(msg, "has invalid keys: "); ok {
			for _, k := range strings.Split(keys, ", ") {
				issues = append(issues, ConfigIssue{Path: joinPath(de.Name(), k), Problem: "unknown key"})
			}
			return
		}
		issues = append(issues, ConfigIssue{Path: de.Name(), Problem: msg})
	}
	walk(err)
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].Path < issues[j].Path })
	return issues
}

// withFieldMessages replaces the problem of an issue on a top-level field
// that has an `invalid` tag by the tag's text.
func withFieldMessages(t reflect.Type, issues []ConfigIssue) []ConfigIssue {
	if t.Kind() != reflect.Struct {
		return issues
	}
	for i, is := range issues {
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if msg := f.Tag.Get("invalid"); msg != "" && name == is.Path {
				issues[i].Problem = msg
			}
		}
	}
	return issues
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
				return nil, fmt.Errorf("expected a duration such as \"5s\", got %s", describeValue(data))
			}
			return d, nil
		case reflect.Int, reflect.Int64, reflect.Int32:
			return data, nil
		}
		return nil, fmt.Errorf("expected a duration such as \"5s\", got %s", describeValue(data))
	}
	switch to.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return integerFor(to, v, data)
	case reflect.Float32, reflect.Float64:
		if isNumberKind(from.Kind()) {
			return data, nil
		}
		return nil, fmt.Errorf("expected a number, got %s", describeValue(data))
	case reflect.String:
		if from.Kind() == reflect.String {
			return data, nil
		}
		return nil, fmt.Errorf("expected a string, got %s", describeValue(data))
	case reflect.Bool:
		if from.Kind() == reflect.Bool {
			return data, nil
		}
		return nil, fmt.Errorf("expected a boolean, got %s", describeValue(data))
	case reflect.Struct, reflect.Map:
		if from.Kind() == reflect.Map || from.Kind() == reflect.Struct {
			return data, nil
		}
		return nil, fmt.Errorf("expected a mapping, got %s", describeValue(data))
	case reflect.Slice, reflect.Array:
		if from.Kind() == reflect.Slice || from.Kind() == reflect.Array {
			return data, nil
		}
		return nil, fmt.Errorf("expected a list, got %s", describeValue(data))
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
			return nil, fmt.Errorf("expected an integer, got %s", describeValue(data))
		}
		return integerFor(to, reflect.ValueOf(int64(f)), int64(f))
	}
	return nil, fmt.Errorf("expected an integer, got %s", describeValue(data))
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

// describeValue names a decoded config value for an error message:
// `string "x"`, `2.5`, `boolean true`, `a list`, `a mapping`, `null`.
func describeValue(data any) string {
	if data == nil {
		return "null"
	}
	v := reflect.ValueOf(data)
	switch v.Kind() {
	case reflect.String:
		return "string " + strconv.Quote(v.String())
	case reflect.Bool:
		return "boolean " + strconv.FormatBool(v.Bool())
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return v.Type().String()
}
