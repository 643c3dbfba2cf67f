package fslocal

// SetRewriteHook replaces the in-place rewrite's step hook for a test and
// returns a function that restores it.
func SetRewriteHook(hook func(step string) error) (restore func()) {
	old := rewriteHook
	rewriteHook = hook
	return func() { rewriteHook = old }
}

// DisableRawOpen makes every openat2 shortcut (Open, ReadText, ListEntries) take its
// os.Root path, as on a kernel without openat2, and returns a function that
// restores it.
func DisableRawOpen() (restore func()) {
	rawOpenDisabled = true
	return func() { rawOpenDisabled = false }
}
