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
	return h.dispatchHooks.add(&dispatchHook{fn: fn})
}

// checkDispatch runs the dispatch hooks, if any.
func (h *Host) checkDispatch(ctx context.Context, name string, payload any) error {
	for _, hk := range h.dispatchHooks.snapshot() {
		if err := Protect("dispatch hook", func() error { return hk.fn(ctx, name, payload) }); err != nil {
			return err
		}
	}
	return nil
}
