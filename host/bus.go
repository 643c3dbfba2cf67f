package host

import (
	"context"
	"fmt"
)

// The EventBus fence (host §4.2). This file is the only one that touches
// github.com/asaskevich/EventBus:
//
//  1. each topic is subscribed once, with the fixed signature
//     func(context.Context, any), and every publish passes exactly those two
//     arguments, so EventBus's reflection can never panic on arity or type;
//  2. the handler list is host-owned (listener.go), ordered, with ids;
//     Unsubscribe, SubscribeOnce*, SubscribeAsync* and the network bus are
//     never used;
//  3. the topic's one handler runs the snapshot under recover and hands the
//     joined error back through a per-dispatch slot carried in ctx;
//  4. an emit made inside a handler (its ctx carries the slot mark) runs the
//     snapshot directly instead of re-entering Publish and its mutex, which
//     would deadlock (EventBus #35, #52).
//
// Residual rule (host §4.3): top-level publishes are serialised by
// EventBus's mutex, so listeners must be short; a listener must not wait for
// a goroutine that emits without the listener's ctx.

// dispatchMark is the ctx key of the per-dispatch slot.
type dispatchMark struct{}

// emitSlot carries one publish's joined listener error back to Emit.
type emitSlot struct{ err error }

// inDispatch reports whether ctx comes from inside a bus handler.
func inDispatch(ctx context.Context) bool { return ctx.Value(dispatchMark{}) != nil }

// busTopic returns the EventBus topic name of t: its event name plus the
// descriptor's address, so same-named descriptors never collide.
func busTopic(t *topic) string { return fmt.Sprintf("%s#%p", t.ev.name, t.ev) }

// publish sends payload through EventBus to t's single handler, subscribing
// it on first use, and returns the joined listener error. run is the typed
// dispatch of the descriptor.
func (h *Host) publish(ctx context.Context, t *topic, payload any, run func(ctx context.Context, payload any) error) error {
	h.topicMu.Lock()
	if !t.subscribed {
		t.busName = busTopic(t)
		handler := func(ctx context.Context, payload any) {
			slot, _ := ctx.Value(dispatchMark{}).(*emitSlot)
			err := run(ctx, payload)
			if slot != nil {
				slot.err = err
			}
		}
		if err := h.bus.Subscribe(t.busName, handler); err != nil {
			h.topicMu.Unlock()
			return fmt.Errorf("event %q: subscribe: %w", t.ev.name, err)
		}
		t.subscribed = true
	}
	name := t.busName
	h.topicMu.Unlock()
	slot := &emitSlot{}
	h.bus.Publish(name, context.WithValue(ctx, dispatchMark{}, slot), payload)
	return slot.err
}
