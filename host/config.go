package host

import (
	"errors"
	"fmt"
	"reflect"
)

// Validator is implemented by config types that check themselves (Caddy's
// Validator). Validate runs before apply; an error makes the instance FAILED
// without running apply. It may return a *ConfigError to name key paths; any
// other error becomes one issue for the whole config. A plugin that wants its
// own message for a bad value produces it here (host §3.7).
type Validator interface {
	// Validate returns nil when the config is usable, else a *ConfigError
	// naming each bad key path or any other error.
	Validate() error
}

// CheckConfig returns the typed config cfg stands for, validated by the
// plugin's own Validate, all before apply (host §1.6). cfg may be nil (the
// default config) or a value or pointer of the plugin's config type C. The
// host decodes nothing: raw mappings from files, env or flags are decoded by
// the config package (config.Decode, host §3.7), and anything else is an
// issue. The error is a *ConfigError; a panicking Validate is one issue.
func (p *Plugin) CheckConfig(cfg any) (any, error) {
	typed, err := p.typed(cfg)
	if err != nil {
		return nil, &ConfigError{Plugin: p.name, Issues: []ConfigIssue{{Problem: err.Error()}}}
	}
	if issues := validateConfig(p.configType, typed); len(issues) > 0 {
		return nil, &ConfigError{Plugin: p.name, Issues: issues}
	}
	return typed, nil
}

// typed returns cfg as a C value.
func (p *Plugin) typed(cfg any) (any, error) {
	if cfg == nil {
		return p.DefaultConfig(), nil
	}
	rv := reflect.ValueOf(cfg)
	switch {
	case rv.Type() == p.configType:
		return cfg, nil
	case rv.Kind() == reflect.Pointer && rv.Type().Elem() == p.configType:
		if rv.IsNil() {
			return p.DefaultConfig(), nil
		}
		return rv.Elem().Interface(), nil
	}
	return nil, fmt.Errorf("expected a %s value, got %T (raw config is decoded by config.Decode)", p.configType, cfg)
}

// validateConfig runs C's Validate, with a value or pointer receiver.
func validateConfig(t reflect.Type, cfg any) []ConfigIssue {
	ptr := reflect.New(t)
	ptr.Elem().Set(reflect.ValueOf(cfg))
	v, ok := ptr.Interface().(Validator)
	if !ok {
		return nil
	}
	err := Protect("Validate", v.Validate)
	if err == nil {
		return nil
	}
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce.Issues
	}
	return []ConfigIssue{{Problem: err.Error()}}
}
