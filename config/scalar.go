package config

import (
	"reflect"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// scalar reads an env or --set value as a YAML scalar: `7` is an integer,
// `2.5` a float, `true` a boolean, anything else (including the empty
// string) a string. A YAML flow list or mapping (`[a, b]`) is read as such.
// A value that is not valid UTF-8 (a path with such bytes) is kept as the
// string it is: YAML would turn each bad byte into U+FFFD, naming another
// file.
func scalar(s string) any {
	if s == "" || !utf8.ValidString(s) {
		return s
	}
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil || v == nil {
		return s
	}
	return v
}

// describe names a raw or decoded config value for an error message:
// `string "x"`, `2.5`, `boolean true`, `a list`, `a mapping`, `null`.
func describe(data any) string {
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
