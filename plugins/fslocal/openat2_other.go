//go:build !linux

package fslocal

// openat2Disabled has no effect here: every open already takes the os.Root
// walk.
var openat2Disabled bool

// openat2 is Linux-only; elsewhere every open takes the os.Root walk.
func (t *tree) openat2(string, int) (int, error) { return -1, errNoOpenat2 }
