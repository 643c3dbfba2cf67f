package host

import (
	"cmp"
	"context"
	"fmt"
)

// event is the untyped identity of an event descriptor; listener tables are
// keyed by its address, so two descriptors never share listeners.
type event struct {
	name string
}

// topic is one host's listener table for one event: an ordered
// copy-on-write list (host §3.5, §4.2).
type topic struct {
	ev         *event
	list       cowList[*listener]
	subscribed bool   // on the EventBus; guarded by h.topicMu
	busName    string // the EventBus topic, set on subscribing; guarded by h.topicMu
}

// listener is one entry of a topic: host-owned, and removed by its
// identity (each registration makes its own: host §4.2's id).
type listener struct {
	fn  any   // the descriptor's typed listener function
	seq int64 // the registration's number, negated for a prepend
}

// bySeq orders a topic's listeners: prepends first, the most recent
// leading, then the rest in registration order (host §1.5).
func bySeq(a, b *listener) int { return cmp.Compare(a.seq, b.seq) }

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
		return t.list.load()
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
	l := &listener{fn: fn, seq: h.seq.Add(1)}
	if o.prepend {
		l.seq = -l.seq
	}
	h.topicMu.Lock()
	t := h.topicForLocked(ev)
	h.topicMu.Unlock()
	e := s.addEffectLocked(fmt.Sprintf("on(%q)", ev.name), func(context.Context) error {
		if t.list.remove(l) {
			h.listenerCount.Add(-1)
		}
		return nil
	})
	e.inline = true
	h.listenerCount.Add(1)
	t.list.add(l, bySeq)
	return e.dispose, nil
}

func listenerSite(name string) string { return fmt.Sprintf("listener of %q", name) }
