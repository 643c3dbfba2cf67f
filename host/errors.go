package host

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInactive is returned by every registration (listener, service, effect,
// goroutine, child plugin) on a scope that is UNLOADING or DISPOSED, and by
// lifecycle calls on a disposed instance. Host §3.2, §3.6.
var ErrInactive = errors.New("scope is inactive")

// ErrDuplicateService matches (with errors.Is) every *DuplicateServiceError.
var ErrDuplicateService = errors.New("duplicate service")

// ErrConfig matches (with errors.Is) every *ConfigError.
var ErrConfig = errors.New("invalid config")

// ErrMissingServices matches (with errors.Is) every *MissingServicesError.
var ErrMissingServices = errors.New("missing services")

// DuplicateServiceError reports a second provider of a service name in one
// host (host §1.2, §6 item 6). The first provider is unaffected.
type DuplicateServiceError struct {
	// Key is the service name, e.g. "fs".
	Key string
	// Existing is the ID of the instance that already provides Key.
	Existing string
}

// Error returns `service "<key>" is already provided by "<existing>"`.
func (e *DuplicateServiceError) Error() string {
	return fmt.Sprintf("service %q is already provided by %q", e.Key, e.Existing)
}

// Is reports whether target is ErrDuplicateService.
func (e *DuplicateServiceError) Is(target error) bool { return target == ErrDuplicateService }

// ConfigIssue is one problem in a plugin config: Path is the key path
// relative to the config being decoded (`readLimit`, `a.b[2]`; empty for the
// whole value) and Problem says what is wrong with it.
type ConfigIssue struct {
	// Path is the offending key path, e.g. `readLimit` or `list[1].depth`;
	// empty when the problem concerns the whole config.
	Path string
	// Problem says what is wrong, e.g. `unknown key` or
	// `expected an integer, got 2.5`.
	Problem string
}

// String returns `<path>: <problem>`, or just the problem when Path is empty.
func (i ConfigIssue) String() string {
	if i.Path == "" {
		return i.Problem
	}
	return i.Path + ": " + i.Problem
}

// ConfigError is an invalid plugin config, found before apply runs (host
// §1.6, §3.7): one issue per offending key path.
type ConfigError struct {
	// Plugin is the plugin's name, e.g. "toolfs".
	Plugin string
	// Issues lists every problem found, in key order.
	Issues []ConfigIssue
}

// Error returns `plugin "<name>": invalid config: <issue>; <issue>`.
func (e *ConfigError) Error() string {
	parts := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		parts[i] = is.String()
	}
	return fmt.Sprintf("plugin %q: invalid config: %s", e.Plugin, strings.Join(parts, "; "))
}

// Is reports whether target is ErrConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// MissingServicesError reports an instance that waits for services nobody
// provides (host §3.2, §3.6 "Boot audit").
type MissingServicesError struct {
	// Instance is the waiting instance's ID.
	Instance string
	// Keys are the missing service names, in declaration order.
	Keys []string
}

// Error returns `"<id>" is waiting for services "a", "b"`.
func (e *MissingServicesError) Error() string {
	q := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return fmt.Sprintf("%q is waiting for services %s", e.Instance, strings.Join(q, ", "))
}

// Is reports whether target is ErrMissingServices.
func (e *MissingServicesError) Is(target error) bool { return target == ErrMissingServices }

// joinErrors is errors.Join that returns a lone error unchanged, so a single
// failure keeps its own message and type at the top (contract §1.1).
func joinErrors(errs []error) error {
	var kept []error
	for _, err := range errs {
		if err != nil {
			kept = append(kept, err)
		}
	}
	switch len(kept) {
	case 0:
		return nil
	case 1:
		return kept[0]
	}
	return errors.Join(kept...)
}
