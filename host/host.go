package host

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asaskevich/EventBus"
)

// Host is one runtime: its instances, services, listener tables and event
// bus. Hosts are independent of each other; a process may run several (tests
// do). All methods are safe for concurrent use, and none of them holds a host
// lock while plugin code runs (host §3.5).
type Host struct {
	log            *slog.Logger
	disposeTimeout time.Duration
	loadTimeout    time.Duration

	mu        sync.RWMutex
	root      *Instance
	rootScope *Scope      // root.scope, kept after Shutdown so it can refuse registrations
	instances []*Instance // live instances, creation order, root first
	services  map[string]*service
	statusQ   []statusChange

	topicMu sync.Mutex
	topics  sync.Map // *event -> *topic
	bus     EventBus.Bus

	seq           atomic.Int64
	listenerCount atomic.Int64
	effectCount   atomic.Int64
	statusHooks   cowList[*statusHook]
}

// Option configures a Host in New.
type Option func(*Host)

// WithLogger sets the logger every scope's logger derives from. Default:
// slog.Default().
func WithLogger(l *slog.Logger) Option { return func(h *Host) { h.log = l } }

// WithDisposeTimeout sets how long one disposer (and a scope's goroutines)
// may run before teardown moves on without it (host §3.6). Default 10s; zero
// or less disables the cut-off.
func WithDisposeTimeout(d time.Duration) Option { return func(h *Host) { h.disposeTimeout = d } }

// WithLoadTimeout sets the deadline of the ctx each apply receives (host
// §2.1). Default 30s; zero or less means no deadline.
func WithLoadTimeout(d time.Duration) Option { return func(h *Host) { h.loadTimeout = d } }

// New returns a running host with an ACTIVE root scope and no plugins.
func New(opts ...Option) *Host {
	h := &Host{
		log:            slog.Default(),
		disposeTimeout: 10 * time.Second,
		loadTimeout:    30 * time.Second,
		services:       map[string]*service{},
		bus:            EventBus.New(),
	}
	for _, o := range opts {
		o(h)
	}
	root := &Instance{h: h, plugin: rootPlugin, id: "root", state: StateActive, changed: make(chan struct{})}
	root.scope = newScope(h, root)
	h.root = root
	h.rootScope = root.scope
	h.instances = []*Instance{root}
	return h
}

var rootPlugin = &Plugin{name: "root"}

// Root returns the host's root scope: the parent of every top-level mount.
// After Shutdown it is inactive: registrations on it return ErrInactive.
func (h *Host) Root() *Scope { return h.rootScope }

// Plugin mounts p under the root scope; see [Scope.Plugin].
func (h *Host) Plugin(ctx context.Context, p *Plugin, cfg any, opts ...MountOption) (*Instance, error) {
	return h.rootScope.Plugin(ctx, p, cfg, opts...)
}

// Shutdown disposes the root scope, and with it every instance in reverse
// mount order, then refuses further registrations with ErrInactive. It
// returns the joined errors of every disposer that failed, panicked or timed
// out (host §3.6, Cordis PR #31 "DisposeChecked"). ctx bounds the whole
// shutdown; pass a context that is not already cancelled. An instance whose apply is still running is disposed
// when apply returns: Shutdown waits for that (each at most the dispose
// timeout) and reports the error of a load that failed meanwhile. A second
// call returns nil.
func (h *Host) Shutdown(ctx context.Context) error {
	h.mu.RLock()
	var busy []*Instance
	for _, x := range h.instances {
		if x.state == StateLoading || x.state == StateUnloading {
			busy = append(busy, x)
		}
	}
	h.mu.RUnlock()
	errs := []error{h.dispose(ctx, h.root)}
	for _, x := range busy {
		errs = append(errs, h.awaitDisposed(ctx, x))
	}
	return joinErrors(errs)
}

// Counts is a census of what a host holds, for leak checks: mount then
// unmount must return every figure to its baseline (host §6 item 1).
type Counts struct {
	// Instances is the number of live (not DISPOSED) instances, root excluded.
	Instances int
	// Listeners is the number of registered event listeners.
	Listeners int
	// Services is the number of provided services.
	Services int
	// Effects is the number of live effects on all scopes, root included.
	Effects int
}

// Counts returns the current census.
func (h *Host) Counts() Counts {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for _, x := range h.instances {
		if x != h.root {
			n++
		}
	}
	return Counts{
		Instances: n,
		Listeners: int(h.listenerCount.Load()),
		Services:  len(h.services),
		Effects:   int(h.effectCount.Load()),
	}
}
