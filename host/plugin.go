package host

import (
	"context"
	"fmt"
	"reflect"
)

// Plugin is a named unit of a deployment: the services it injects (waits
// for), those it may use if present, those it provides, its config type and
// its apply function (host §1.1, §2.2). A Plugin is inert: every mount of it
// (Scope.Plugin) is its own [Instance], and apply runs once per activation.
// Runtime identity is the *Plugin pointer; the name is what deployment
// configs use.
type Plugin struct {
	name       string
	inject     []ServiceKey
	optional   []ServiceKey
	provides   []ServiceKey
	defaults   func() any
	configType reflect.Type
	apply      func(ctx context.Context, s *Scope, cfg any) error
}

// PluginOption configures a plugin in Define.
type PluginOption func(*Plugin)

// Inject declares services the plugin requires: an instance stays PENDING,
// with no error, until every one of them is provided by an ACTIVE instance,
// and goes back to PENDING when one goes away (host §1.2).
func Inject(keys ...ServiceKey) PluginOption {
	return func(p *Plugin) { p.inject = append(p.inject, keys...) }
}

// Optional declares services the plugin uses when present, probing with
// Key.Get at use time. They never gate activation and their coming and going
// does not restart the plugin (host §3.2).
func Optional(keys ...ServiceKey) PluginOption {
	return func(p *Plugin) { p.optional = append(p.optional, keys...) }
}

// Provides declares the services the plugin's apply provides. It is
// documentation for snapshots and `dshhost plugins`; providing is done with
// Key.Provide in apply.
func Provides(keys ...ServiceKey) PluginOption {
	return func(p *Plugin) { p.provides = append(p.provides, keys...) }
}

// Defaults sets the function that returns the plugin's default config; raw
// config is decoded on top of it. C must be the plugin's config type, or
// Define panics (a programming error).
func Defaults[C any](fn func() C) PluginOption {
	return func(p *Plugin) {
		if reflect.TypeFor[C]() != p.configType {
			panic(fmt.Sprintf("host: Defaults for plugin %q has type %s, want %s", p.name, reflect.TypeFor[C](), p.configType))
		}
		p.defaults = func() any { return fn() }
	}
}

// Define makes a plugin named name whose config type is C. apply runs once
// per activation with the activation's scope, a ctx that bounds startup only,
// and the validated config. Everything apply registers through s is owned by
// the activation and torn down in reverse order when it ends; an error or
// panic from apply puts the instance in FAILED and rolls those registrations
// back (host §1.4). Define has no side effects. Use struct{} for C when the
// plugin takes no config.
func Define[C any](name string, apply func(ctx context.Context, s *Scope, cfg C) error, opts ...PluginOption) *Plugin {
	p := &Plugin{
		name:       name,
		configType: reflect.TypeFor[C](),
		apply: func(ctx context.Context, s *Scope, cfg any) error {
			return apply(ctx, s, cfg.(C))
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Name returns the plugin's name, e.g. "fslocal".
func (p *Plugin) Name() string { return p.name }

// ConfigType returns the plugin's config type C.
func (p *Plugin) ConfigType() reflect.Type { return p.configType }

// DefaultConfig returns the plugin's default config as a C value: the
// Defaults function's result, or C's zero value.
func (p *Plugin) DefaultConfig() any {
	if p.defaults != nil {
		return p.defaults()
	}
	return reflect.Zero(p.configType).Interface()
}

// ProvidedServices returns the names declared with Provides, in
// declaration order.
func (p *Plugin) ProvidedServices() []string { return keyNames(p.provides) }

func keyNames(keys []ServiceKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Name()
	}
	return out
}
