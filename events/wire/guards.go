package wire

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Entry is one carrier entry (an exec child, a NATS connection) in its
// host's list (§1).
type Entry struct {
	// Intents are the intent events Guard is asked about, among
	// [Intents]. Others are ignored.
	Intents []string
	// Guard asks the plugin about event for req: nil lets the chain go on;
	// an error (a *Denied, a §2 *Unavailable) fails the call, and no later
	// guard or decider runs. It must honour ctx and its own timeout.
	Guard func(ctx context.Context, event string, req events.IntentRequest) error
	// State describes the entry now, for `dshhost plugins`.
	State func() State
}

// State is what `dshhost plugins` shows of a carrier entry.
type State struct {
	// Process is the entry's own state, e.g. `running (pid 4242)`,
	// `restarting in 2s: exit status 1`, `failed: no answer within 2s`.
	Process string
	// Dropped counts the notifications dropped from the entry's bounded
	// queue since it started (§1).
	Dropped uint64
}

// Intents are the intent events a plugin on the wire can guard (§1), in
// the order the carriers list them: fs/write-intent, fs/edit-intent,
// fs/remove-intent.
var Intents = []string{events.FSWriteIntent.Name(), events.FSEditIntent.Name(), events.FSRemoveIntent.Name()}

// slot is one entry in a table.
type slot struct {
	inst *host.Instance
	e    Entry
}

// table is one host's ordered list of carrier entries. The list is copy-on-
// write (dispatch loads it without a lock); listeners are the disposers of
// the two listeners prepended on the host's root scope while the list is
// not empty.
type table struct {
	list      atomic.Pointer[[]*slot]
	listeners []host.Disposer
}

// tables holds each host's table; mu serialises every change to it and to
// the lists.
var (
	mu     sync.Mutex
	tables = map[*host.Host]*table{}
)

// Join adds e to the list of s's host at the place of s's instance in
// mount order (a deployment's entries are mounted in file order), until s
// ends. The first entry of a host prepends one listener on each of the
// [Intents] (on the host's root scope, so that they outlive any one entry); the last to leave removes them. An entry that restarts
// leaves and joins again at the same place, since its instance keeps its
// mount position. The Disposer takes e out early.
func Join(s *host.Scope, e Entry) (host.Disposer, error) {
	h := s.Host()
	sl := &slot{inst: s.Instance(), e: e}
	mu.Lock()
	t := tables[h]
	if t == nil {
		t = &table{}
		if err := t.listen(h.Root()); err != nil {
			mu.Unlock()
			return nil, err
		}
		tables[h] = t
	}
	t.store(h, append(t.load(), sl))
	mu.Unlock()
	d, err := s.Effect("wire.Join", func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		rest := slices.DeleteFunc(slices.Clone(t.load()), func(x *slot) bool { return x == sl })
		t.store(h, rest)
		if len(rest) == 0 && tables[h] == t {
			delete(tables, h)
			for _, d := range t.listeners {
				_ = d(ctx)
			}
		}
		return nil
	})
	if err != nil { // s ended meanwhile: undo at once
		mu.Lock()
		rest := slices.DeleteFunc(slices.Clone(t.load()), func(x *slot) bool { return x == sl })
		t.store(h, rest)
		mu.Unlock()
	}
	return d, err
}

func (t *table) load() []*slot {
	if p := t.list.Load(); p != nil {
		return *p
	}
	return nil
}

// store publishes list sorted by the instances' mount order. mu is held.
func (t *table) store(h *host.Host, list []*slot) {
	order := map[*host.Instance]int{}
	for i, info := range h.Snapshot() {
		if inst := h.Instance(info.ID); inst != nil {
			order[inst] = i
		}
	}
	slices.SortStableFunc(list, func(a, b *slot) int { return order[a.inst] - order[b.inst] })
	t.list.Store(&list)
}

// listen prepends the table's listeners, one on each of the [Intents], on
// root.
func (t *table) listen(root *host.Scope) error {
	dw, err := events.FSWriteIntent.On(root, func(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
		if err := t.guard(ctx, events.FSWriteIntent.Name(), req); err != nil {
			return nil, err
		}
		return next(ctx)
	}, host.Prepend())
	if err != nil {
		return err
	}
	t.listeners = []host.Disposer{dw}
	de, err := events.FSEditIntent.On(root, func(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.EditGuard]) (*fsapi.EditGuard, error) {
		if err := t.guard(ctx, events.FSEditIntent.Name(), req); err != nil {
			return nil, err
		}
		return next(ctx)
	}, host.Prepend())
	if err != nil {
		t.unlisten()
		return err
	}
	t.listeners = append(t.listeners, de)
	dr, err := events.FSRemoveIntent.On(root, func(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.RemoveGuard]) (*fsapi.RemoveGuard, error) {
		if err := t.guard(ctx, events.FSRemoveIntent.Name(), req); err != nil {
			return nil, err
		}
		return next(ctx)
	}, host.Prepend())
	if err != nil {
		t.unlisten()
		return err
	}
	t.listeners = append(t.listeners, dr)
	return nil
}

// unlisten removes the listeners listen added.
func (t *table) unlisten() {
	for _, d := range t.listeners {
		_ = d(context.Background())
	}
	t.listeners = nil
}

// guard runs the guards of every entry that asked for the event, in order;
// the first error ends the chain.
func (t *table) guard(ctx context.Context, event string, req events.IntentRequest) error {
	for _, sl := range t.load() {
		if !slices.Contains(sl.e.Intents, event) {
			continue
		}
		if err := sl.e.Guard(ctx, event, req); err != nil {
			return err
		}
	}
	return nil
}

// States returns the state of every carrier entry of h, by instance id.
func States(h *host.Host) map[string]State {
	mu.Lock()
	t := tables[h]
	mu.Unlock()
	out := map[string]State{}
	if t == nil {
		return out
	}
	for _, sl := range t.load() {
		if sl.e.State != nil {
			out[sl.inst.ID()] = sl.e.State()
		}
	}
	return out
}
