package host

import (
	"context"
	"fmt"
)

// ServiceKey is the untyped view of a [Key], used in plugin declarations
// (Inject, Optional, Provides).
type ServiceKey interface {
	// Name returns the service name, e.g. "fs".
	Name() string
}

// Key is a typed service key (host §2.2): the only way to provide or look up
// the service called Name, with T checked by the compiler. Make each key once,
// in the service's contract package:
//
//	var Key = host.NewKey[FileSystem]("fs")
type Key[T any] struct{ name string }

// NewKey returns the key of the service called name.
func NewKey[T any](name string) *Key[T] { return &Key[T]{name: name} }

// Name returns the service name.
func (k *Key[T]) Name() string { return k.name }

// service is one provided service.
type service struct {
	value    any
	provider *Instance
}

// Provide registers v as the service k on behalf of s's instance. The
// service becomes visible to others when that instance is ACTIVE (at once if
// it already is) and is withdrawn when s ends or the returned Disposer runs:
// dependents are unloaded back to PENDING first (host §1.2). A second
// provider of the same name in one host fails with a *DuplicateServiceError
// (matching ErrDuplicateService) and leaves the first unaffected. On an
// inactive scope Provide returns ErrInactive.
func (k *Key[T]) Provide(s *Scope, v T) (Disposer, error) {
	h := s.h
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrInactive
	}
	h.mu.Lock()
	if sv, dup := h.services[k.name]; dup {
		h.mu.Unlock()
		s.mu.Unlock()
		return nil, &DuplicateServiceError{Key: k.name, Existing: sv.provider.id}
	}
	sv := &service{value: v, provider: s.inst}
	h.services[k.name] = sv
	active := s.inst.state == StateActive
	h.mu.Unlock()
	e := s.addEffectLocked(fmt.Sprintf("provide(%q)", k.name), func(ctx context.Context) error {
		return h.withdraw(ctx, k.name, sv)
	})
	e.inline = true // host-owned: each dependent's disposers have their own timeouts
	s.mu.Unlock()
	if active {
		h.wake(context.Background())
	}
	return e.dispose, nil
}

// withdraw removes a service after unloading its dependents.
func (h *Host) withdraw(ctx context.Context, name string, sv *service) error {
	h.mu.RLock()
	current := h.services[name] == sv
	deps := h.dependentsLocked([]string{name})
	h.mu.RUnlock()
	if !current {
		return nil
	}
	var errs []error
	for _, d := range deps {
		if d != sv.provider {
			errs = append(errs, h.unloadToPending(ctx, d))
		}
	}
	h.mu.Lock()
	if h.services[name] == sv {
		delete(h.services, name)
	}
	h.mu.Unlock()
	return joinErrors(errs)
}

// Get returns the service k as seen from s: present while its provider is
// ACTIVE (or, during the provider's own teardown, UNLOADING), and always to
// the provider itself. Plugins call it at use time for Optional services.
func (k *Key[T]) Get(s *Scope) (T, bool) {
	h := s.h
	h.mu.RLock()
	sv := h.services[k.name]
	visible := sv != nil && (sv.provider.state == StateActive || sv.provider.state == StateUnloading || sv.provider == s.inst)
	h.mu.RUnlock()
	if !visible {
		var zero T
		return zero, false
	}
	return sv.value.(T), true
}

// Must returns the service k, for services the plugin declared with Inject
// (which are present whenever its apply runs). It panics when the service is
// absent, a programming error.
func (k *Key[T]) Must(s *Scope) T {
	v, ok := k.Get(s)
	if !ok {
		panic(fmt.Sprintf("host: service %q is not available to %q; declare it with Inject", k.name, s.inst.id))
	}
	return v
}
