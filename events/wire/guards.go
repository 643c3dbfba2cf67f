package wire

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

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
	// Timeout and OnFailure decide an intent that comes while the entry
	// is between two activations (a restart, a config reload): it waits
	// up to Timeout for the next activation's Guard and asks it; when none
	// joins in time, or the instance FAILED, OnFailure applies (the zero
	// value blocks).
	Timeout   time.Duration
	OnFailure OnFailure
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
	log  *slog.Logger
	// held is non-nil while the slot holds the place of an activation
	// that ended: it is closed when the slot is replaced or removed.
	held chan struct{}
}

// asks reports whether the slot's guard is asked about event.
func (sl *slot) asks(event string) bool { return slices.Contains(sl.e.Intents, event) }

// table is one host's ordered list of carrier entries. The list is copy-on-
// write (dispatch loads it without a lock); listeners are the disposers of
// the listeners prepended on the host's root scope, one on each of the [Intents],
// and of the status hook, while the list is not empty.
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
// [Intents] (on the host's root scope, so that they outlive any one entry);
// the last to leave removes them.
//
// When s ends, the entry keeps its place until its instance is DISPOSED or
// is ACTIVE again without having joined: an intent meanwhile (a restart, a
// config reload) waits for the next activation's entry and asks it, within
// e.Timeout, or fails per e.OnFailure. So no intent passes an entry
// unasked while it is swapped. The Disposer takes e out early, at once;
// called by an apply that then fails (its instance LOADING), it holds the
// place as the scope's end does.
func Join(s *host.Scope, e Entry) (host.Disposer, error) {
	h := s.Host()
	sl := &slot{inst: s.Instance(), e: e, log: s.Logger()}
	mu.Lock()
	t := tables[h]
	if t == nil {
		t = &table{}
		if err := t.listen(h); err != nil {
			mu.Unlock()
			return nil, err
		}
		tables[h] = t
	}
	list := slices.Clone(t.load())
	if i := slices.IndexFunc(list, func(x *slot) bool { return x.inst == sl.inst && x.held != nil }); i >= 0 {
		close(list[i].held)
		list[i] = sl
	} else {
		list = append(list, sl)
	}
	t.store(h, list)
	mu.Unlock()
	var early atomic.Bool
	d, err := s.Effect("wire.Join", func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if early.Load() && sl.inst.State() != host.StateLoading {
			t.remove(ctx, h, func(x *slot) bool { return x == sl })
			return nil
		}
		list := slices.Clone(t.load())
		if i := slices.Index(list, sl); i >= 0 {
			list[i] = &slot{inst: sl.inst, e: sl.e, log: sl.log, held: make(chan struct{})}
			t.store(h, list)
		}
		return nil
	})
	if err != nil { // s ended meanwhile: undo at once
		mu.Lock()
		t.remove(context.Background(), h, func(x *slot) bool { return x == sl })
		mu.Unlock()
		return nil, err
	}
	return func(ctx context.Context) error {
		early.Store(true)
		return d(ctx)
	}, nil
}

// remove takes the slots that match out of the list (closing the held
// ones) and, when the list is then empty, the table's listeners. mu is
// held.
func (t *table) remove(ctx context.Context, h *host.Host, match func(*slot) bool) {
	rest := slices.DeleteFunc(slices.Clone(t.load()), func(x *slot) bool {
		if match(x) {
			if x.held != nil {
				close(x.held)
			}
			return true
		}
		return false
	})
	t.store(h, rest)
	if len(rest) == 0 && tables[h] == t {
		delete(tables, h)
		for _, d := range t.listeners {
			_ = d(ctx)
		}
		t.listeners = nil
	}
}

// settle follows inst's transitions for its held slot: DISPOSED, or ACTIVE
// without a new entry, takes it out; FAILED wakes the intents waiting on
// it, which then fail at once.
func (t *table) settle(h *host.Host, inst *host.Instance, st host.State) {
	if st != host.StateDisposed && st != host.StateActive && st != host.StateFailed {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if tables[h] != t {
		return
	}
	isHeld := func(x *slot) bool { return x.inst == inst && x.held != nil }
	if !slices.ContainsFunc(t.load(), isHeld) {
		return
	}
	if st != host.StateFailed {
		t.remove(context.Background(), h, isHeld)
		return
	}
	list := slices.Clone(t.load())
	for i, x := range list {
		if isHeld(x) {
			close(x.held)
			list[i] = &slot{inst: x.inst, e: x.e, log: x.log, held: make(chan struct{})}
		}
	}
	t.store(h, list)
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
// h's root scope, and follows h's transitions (settle).
func (t *table) listen(h *host.Host) error {
	root := h.Root()
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
	t.listeners = append(t.listeners, dr, h.OnStatus(func(inst *host.Instance, _, st host.State) { t.settle(h, inst, st) }))
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
		if !sl.asks(event) {
			continue
		}
		if err := t.ask(ctx, sl, event, req); err != nil {
			return err
		}
	}
	return nil
}

// ask asks sl's guard about event; a held slot waits, within its
// Timeout, for its instance's next entry and asks that one.
func (t *table) ask(ctx context.Context, sl *slot, event string, req events.IntentRequest) error {
	if sl.held == nil {
		return sl.e.Guard(ctx, event, req)
	}
	timer := time.NewTimer(sl.e.Timeout)
	defer timer.Stop()
	for sl.held != nil {
		if st := sl.inst.State(); st == host.StateFailed {
			return sl.e.OnFailure.Fail(sl.log, sl.inst.ID(), event, fmt.Sprintf("the entry failed: %v", sl.inst.Err()))
		}
		select {
		case <-sl.held:
		case <-timer.C:
			return sl.e.OnFailure.Fail(sl.log, sl.inst.ID(), event,
				fmt.Sprintf("the entry is restarting and did not take intents again within %s", sl.e.Timeout))
		case <-ctx.Done():
			return ctx.Err()
		}
		list := t.load()
		i := slices.IndexFunc(list, func(x *slot) bool { return x.inst == sl.inst })
		if i < 0 {
			return nil // the entry is gone: it is no longer asked
		}
		if sl = list[i]; !sl.asks(event) {
			return nil
		}
	}
	return sl.e.Guard(ctx, event, req)
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
		switch {
		case sl.held != nil:
			out[sl.inst.ID()] = State{Process: "restarting (" + sl.inst.State().String() + ")"}
		case sl.e.State != nil:
			out[sl.inst.ID()] = sl.e.State()
		}
	}
	return out
}
