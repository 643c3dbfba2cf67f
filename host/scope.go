package host

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
)

// Scope is the capability and ownership handle of one activation of an
// instance (host §2.1): everything registered through it (listeners,
// services, child plugins, effects, goroutines) is owned by it and torn down
// in reverse order when the activation ends. A scope is never stored in
// request data; cancellation travels in a context.Context instead.
//
// A scope becomes inactive when its activation starts unloading; every
// registration on it then fails with ErrInactive.
type Scope struct {
	h    *Host
	inst *Instance
	// log is made on first use (Logger): tagging a logger formats its
	// attributes at once, and most activations never log.
	log     *slog.Logger
	logOnce sync.Once

	mu       sync.Mutex
	closed   bool
	effects  []*effect
	onUpdate func(ctx context.Context, cfg any) error // OnUpdate's hook
}

func newScope(h *Host, inst *Instance) *Scope { return &Scope{h: h, inst: inst} }

// Logger returns the host's structured logger tagged with this instance's
// plugin name and ID.
func (s *Scope) Logger() *slog.Logger {
	s.logOnce.Do(func() { s.log = s.h.log.With("plugin", s.inst.plugin.name, "instance", s.inst.id) })
	return s.log
}

// Host returns the host the scope belongs to.
func (s *Scope) Host() *Host { return s.h }

// Instance returns the instance this scope is an activation of.
func (s *Scope) Instance() *Instance { return s.inst }

// Go runs fn in a goroutine owned by s. fn receives a ctx that is
// cancelled when the activation unloads: waiting for fn is a disposer of s
// labelled `go("<label>")`, so in teardown, at its place in reverse registration order, that ctx is
// cancelled and fn is awaited (up to the host's dispose timeout) before
// anything registered earlier is torn down, and always before the instance
// is DISPOSED (host §1.3, §2.1, §6 item 10). A panic in fn is recovered and
// logged as `goroutine "<label>" panicked: <value>`. On an inactive scope Go
// returns ErrInactive and fn does not run.
func (s *Scope) Go(label string, fn func(ctx context.Context)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrInactive
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.addEffectLocked(fmt.Sprintf("go(%q)", label), func(dctx context.Context) error {
		cancel()
		select {
		case <-done:
			return nil
		case <-dctx.Done():
			return fmt.Errorf("goroutine %q did not finish: %w", label, dctx.Err())
		}
	})
	go func() {
		defer close(done)
		defer cancel()
		err := Protect(fmt.Sprintf("goroutine %q", label), func() error { fn(ctx); return nil })
		if err != nil {
			s.Logger().Error("scope goroutine panicked", "goroutine", label, "err", err)
		}
	}()
	return nil
}

// MountOption configures one mount in Scope.Plugin.
type MountOption func(*mountOptions)

type mountOptions struct{ id string }

// ID sets the instance's ID (a deployment entry's id). Without it the ID is
// the plugin's name, or `<name>#<n>` when that is taken by a live instance.
func ID(id string) MountOption { return func(o *mountOptions) { o.id = id } }

// Plugin mounts p as a child of s with the given config and returns the new
// instance (host §1.1). cfg (nil for the defaults, or a value of the
// plugin's config type) is validated first (see [Plugin.CheckConfig]); an
// invalid config leaves the instance FAILED
// without running apply. Otherwise the instance loads at once when every
// injected service is present and ACTIVE, or waits in PENDING until it is.
// Apply runs on the calling goroutine; its ctx keeps ctx's values but not its
// cancellation and has the host's load timeout.
//
// The child is an effect of s: disposing s disposes it. Mounting the same
// plugin twice makes two instances. On an inactive scope Plugin returns
// ErrInactive; an explicit ID already used by a live instance is an error.
// Load errors are not returned here: read them with Instance.Err or Wait.
func (s *Scope) Plugin(ctx context.Context, p *Plugin, cfg any, opts ...MountOption) (*Instance, error) {
	var mo mountOptions
	for _, o := range opts {
		o(&mo)
	}
	decoded, cfgErr := p.CheckConfig(cfg)
	inst, err := s.h.newInstance(s, p, decoded, mo.id)
	if err != nil {
		return nil, err
	}
	if cfgErr != nil {
		s.h.fail(inst, cfgErr)
		return inst, nil
	}
	s.h.start(ctx, inst)
	return inst, nil
}

// With mounts a sub-plugin of s that exists exactly while every key in keys
// is provided by an ACTIVE instance: apply runs when they all appear and its
// registrations are withdrawn when any goes away (host §3.2, §6 item 11).
// label names the sub-plugin in snapshots and logs.
func (s *Scope) With(ctx context.Context, label string, keys []ServiceKey, apply func(ctx context.Context, sub *Scope) error) (*Instance, error) {
	p := Define(label, func(ctx context.Context, sub *Scope, _ struct{}) error { return apply(ctx, sub) }, Inject(keys...))
	return s.Plugin(ctx, p, nil)
}
