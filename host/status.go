package host

import "fmt"

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
	return h.statusHooks.add(&statusHook{fn: fn})
}

// flushStatus delivers queued transitions to the status hooks. No lock is
// held while a hook runs, so a hook may call any host API.
func (h *Host) flushStatus() {
	h.mu.Lock()
	q := h.statusQ
	h.statusQ = nil
	h.mu.Unlock()
	hooks := h.statusHooks.snapshot()
	for _, c := range q {
		h.log.Debug("state", "plugin", c.inst.plugin.name, "instance", c.inst.id, "from", c.old.String(), "to", c.new.String())
		for _, hk := range hooks {
			if err := Protect("status hook", func() error { hk.fn(c.inst, c.old, c.new); return nil }); err != nil {
				h.log.Error("status hook failed", "err", fmt.Sprint(err))
			}
		}
	}
}
