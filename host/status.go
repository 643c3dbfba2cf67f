package host

import (
	"context"
	"fmt"
	"log/slog"
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
	h.statusHooks.add(hk, nil)
	return func(context.Context) error {
		h.statusHooks.remove(hk)
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
	hooks := h.statusHooks.load()
	// Enabled first: the log call's arguments (boxed into a slice of any)
	// were a hundred allocations of a one-shot `dshhost call`, which logs
	// at WARN.
	debug := len(q) > 0 && h.log.Enabled(context.Background(), slog.LevelDebug)
	for _, c := range q {
		if debug {
			h.log.Debug("state", "plugin", c.inst.plugin.name, "instance", c.inst.id, "from", c.old.String(), "to", c.new.String())
		}
		for _, hk := range hooks {
			if err := Protect("status hook", func() error { hk.fn(c.inst, c.old, c.new); return nil }); err != nil {
				h.log.Error("status hook failed", "err", fmt.Sprint(err))
			}
		}
	}
}
