package host

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"
)

// event is the untyped identity of an event descriptor; listener tables are
// keyed by its address, so two descriptors never share listeners.
type event struct {
	name string
}

// topic is one host's listener table for one event: an immutable, ordered
// slice behind an atomic pointer (copy-on-write, host §3.5, §4.2).
type topic struct {
	ev         *event
	list       atomic.Pointer[[]*listener]
	subscribed bool   // on the EventBus; guarded by h.topicMu
	busName    string // the EventBus topic, set on subscribing; guarded by h.topicMu
}

// listener is one entry of a topic: host-owned, removed by id.
type listener struct {
	id    int64
	owner *Instance
	fn    any   // the descriptor's typed listener function
	seq   int64 // negative for prepends, most recent lowest
}

// ListenOption configures one registration.
type ListenOption func(*listenOptions)

type listenOptions struct {
	prepend bool
}

// Prepend puts the listener before every listener registered so far; among
// prepended listeners the most recent leads (host §1.5).
func Prepend() ListenOption { return func(o *listenOptions) { o.prepend = true } }

// topicOf returns h's table for ev, or nil when nothing ever listened.
func (h *Host) topicOf(ev *event) *topic {
	if t, ok := h.topics.Load(ev); ok {
		return t.(*topic)
	}
	return nil
}

// snapshot returns the current listener list of ev (nil when empty).
func (h *Host) snapshot(ev *event) []*listener {
	if t := h.topicOf(ev); t != nil {
		if p := t.list.Load(); p != nil {
			return *p
		}
	}
	return nil
}

func (h *Host) topicForLocked(ev *event) *topic {
	if t := h.topicOf(ev); t != nil {
		return t
	}
	t := &topic{ev: ev}
	h.topics.Store(ev, t)
	return t
}

// on registers fn on ev for s's instance; the registration is an effect of
// s labelled `on("<event>")` (host §1.5).
func (h *Host) on(s *Scope, ev *event, fn any, opts []ListenOption) (Disposer, error) {
	var o listenOptions
	for _, opt := range opts {
		opt(&o)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrInactive
	}
	l := &listener{fn: fn, owner: s.inst}
	n := h.seq.Add(1)
	l.id = n
	l.seq = n
	if o.prepend {
		l.seq = -n
	}
	h.topicMu.Lock()
	t := h.topicForLocked(ev)
	h.topicMu.Unlock()
	e := s.addEffectLocked(fmt.Sprintf("on(%q)", ev.name), func(context.Context) error {
		h.removeListener(t, l.id)
		return nil
	})
	e.inline = true
	h.listenerCount.Add(1)
	h.topicMu.Lock()
	var next []*listener
	if p := t.list.Load(); p != nil {
		next = append(next, *p...)
	}
	next = append(next, l)
	sort.SliceStable(next, func(i, j int) bool { return next[i].seq < next[j].seq })
	t.list.Store(&next)
	h.topicMu.Unlock()
	return e.dispose, nil
}

// removeListener drops the entry with id from t, exactly that one.
func (h *Host) removeListener(t *topic, id int64) {
	h.topicMu.Lock()
	defer h.topicMu.Unlock()
	p := t.list.Load()
	if p == nil {
		return
	}
	next := make([]*listener, 0, len(*p))
	found := false
	for _, l := range *p {
		if l.id == id {
			found = true
			continue
		}
		next = append(next, l)
	}
	if found {
		t.list.Store(&next)
		h.listenerCount.Add(-1)
	}
}

func listenerSite(name string) string { return fmt.Sprintf("listener of %q", name) }
