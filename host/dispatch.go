package host

import "context"

type dispatchHook struct {
	fn func(ctx context.Context, event string, payload any) error
}

// OnDispatch registers fn to inspect every dispatch (Emit, Waterfall,
// Parallel, First) of h before any listener runs, for development invariant
// checkers such as contract §1.2's. A non-nil error from fn fails the
// dispatch with that error and no listener runs. With no hook registered the
// cost is one atomic load per dispatch. The returned Disposer removes fn.
func (h *Host) OnDispatch(fn func(ctx context.Context, event string, payload any) error) Disposer {
	hk := &dispatchHook{fn: fn}
	h.topicMu.Lock()
	var list []*dispatchHook
	if old := h.dispatchHooks.Load(); old != nil {
		list = append(list, *old...)
	}
	list = append(list, hk)
	h.dispatchHooks.Store(&list)
	h.topicMu.Unlock()
	return func(context.Context) error {
		h.topicMu.Lock()
		defer h.topicMu.Unlock()
		var next []*dispatchHook
		for _, x := range *h.dispatchHooks.Load() {
			if x != hk {
				next = append(next, x)
			}
		}
		if len(next) == 0 {
			h.dispatchHooks.Store(nil)
		} else {
			h.dispatchHooks.Store(&next)
		}
		return nil
	}
}

// checkDispatch runs the dispatch hooks, if any.
func (h *Host) checkDispatch(ctx context.Context, name string, payload any) error {
	p := h.dispatchHooks.Load()
	if p == nil {
		return nil
	}
	for _, hk := range *p {
		if err := Protect("dispatch hook", func() error { return hk.fn(ctx, name, payload) }); err != nil {
			return err
		}
	}
	return nil
}
