package fslocal

// SetRewriteHook replaces the in-place rewrite's step hook for a test and
// returns a function that restores it.
func SetRewriteHook(hook func(step string) error) (restore func()) {
	old := rewriteHook
	rewriteHook = hook
	return func() { rewriteHook = old }
}

// DisableOpenat2 makes every open take the os.Root walk, as on a kernel
// without openat2, and returns a function that restores it.
func DisableOpenat2() (restore func()) {
	openat2Disabled = true
	return func() { openat2Disabled = false }
}

// DisableRenameNoReplace makes every no-replace rename fail EINVAL, as on a
// file system without RENAME_NOREPLACE, and returns a function that
// restores it.
func DisableRenameNoReplace() (restore func()) {
	renameNoReplaceDisabled = true
	return func() { renameNoReplaceDisabled = false }
}

// SetMoveHook runs hook right before each move's rename, under its locks,
// and returns a function that restores the default.
func SetMoveHook(hook func()) (restore func()) {
	old := moveHook
	moveHook = hook
	return func() { moveHook = old }
}
