package fslocal

// SetRewriteHook replaces the in-place rewrite's step hook for a test and
// returns a function that restores it.
func SetRewriteHook(hook func(step string) error) (restore func()) {
	old := rewriteHook
	rewriteHook = hook
	return func() { rewriteHook = old }
}
