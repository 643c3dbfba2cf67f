package host

import (
	"context"
	"fmt"
	"reflect"
)

// OnUpdate makes fn the update hook of s's activation, Cordis's "accept":
// a later [Instance.Update] with a valid new config calls fn with it instead
// of restarting the instance, and when fn returns nil the new config becomes
// the instance's while everything the activation registered stays (its
// state survives, its dependents keep running). fn returning an error (or
// panicking) declines: the instance restarts with the new config as usual.
// fn runs with no host lock held, on the goroutine that called Update.
//
// C must be the plugin's config type; one hook per activation (a second
// call replaces the first); the hook ends with the activation. On an
// inactive scope OnUpdate returns ErrInactive.
func OnUpdate[C any](s *Scope, fn func(ctx context.Context, cfg C) error) error {
	if t := reflect.TypeFor[C](); t != s.inst.plugin.configType {
		return fmt.Errorf("host: OnUpdate for plugin %q has type %s, want %s", s.inst.plugin.name, t, s.inst.plugin.configType)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrInactive
	}
	s.onUpdate = func(ctx context.Context, cfg any) error { return fn(ctx, cfg.(C)) }
	return nil
}

// updateInPlace offers a validated cfg to inst's update hook and reports
// whether the activation took it; false means inst must restart.
func (h *Host) updateInPlace(ctx context.Context, inst *Instance, cfg any) bool {
	h.mu.RLock()
	st, scope, gen := inst.state, inst.scope, inst.gen
	h.mu.RUnlock()
	if st != StateActive || scope == nil {
		return false
	}
	scope.mu.Lock()
	fn := scope.onUpdate
	scope.mu.Unlock()
	if fn == nil {
		return false
	}
	if err := Protect(fmt.Sprintf("update hook of plugin %q", inst.plugin.name), func() error { return fn(ctx, cfg) }); err != nil {
		scope.Logger().Info("config change not taken in place; restarting", "err", err)
		return false
	}
	h.mu.Lock()
	taken := inst.scope == scope && inst.gen == gen && inst.state == StateActive
	if taken {
		inst.cfg = cfg
	}
	h.mu.Unlock()
	return taken
}
