package config

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// scalar reads an env or --set value as a YAML scalar: `7` is an integer,
// `2.5` a float, `true` a boolean, anything else (including the empty
// string) a string. A YAML flow list or mapping (`[a, b]`) is read as such.
func scalar(s string) any {
	if s == "" {
		return ""
	}
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil || v == nil {
		return s
	}
	return v
}

// describe names a raw value for an error message.
func describe(v any) string {
	if v == nil {
		return "null"
	}
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean %t", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64, reflect.Float32, reflect.Uint64:
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%T", v)
}
