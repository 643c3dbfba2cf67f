package host

import (
	"context"
	"fmt"
)

type statusChange struct {
	inst     *Instance
	old, new State
}

type statusHook struct {
	fn func(inst *Instance, old, new State)
}

// OnStatus registers fn to be told of every state transition, in order
// (host §3.6 "Observability"). fn runs with no host lock held and must not
// block. The returned Disposer removes it.
func (h *Host) OnStatus(fn func(inst *Instance, old, new State)) Disposer {
	hk := &statusHook{fn: fn}
	h.topicMu.Lock()
	old := h.statusHooks.Load()
	var list []*statusHook
	if old != nil {
		list = append(list, *old...)
	}
	list = append(list, hk)
	h.statusHooks.Store(&list)
	h.topicMu.Unlock()
	return func(context.Context) error {
		h.topicMu.Lock()
		defer h.topicMu.Unlock()
		cur := h.statusHooks.Load()
		var next []*statusHook
		for _, x := range *cur {
			if x != hk {
				next = append(next, x)
			}
		}
		h.statusHooks.Store(&next)
		return nil
	}
}

// flushStatus delivers queued transitions to the status hooks. No lock is
// held while a hook runs, so a hook may call any host API.
func (h *Host) flushStatus() {
	h.mu.Lock()
	q := h.statusQ
	h.statusQ = nil
	h.mu.Unlock()
	hooks := h.statusHooks.Load()
	for _, c := range q {
		h.log.Debug("state", "plugin", c.inst.plugin.name, "instance", c.inst.id, "from", c.old.String(), "to", c.new.String())
		if hooks == nil {
			continue
		}
		for _, hk := range *hooks {
			if err := Protect("status hook", func() error { hk.fn(c.inst, c.old, c.new); return nil }); err != nil {
				h.log.Error("status hook failed", "err", fmt.Sprint(err))
			}
		}
	}
}
