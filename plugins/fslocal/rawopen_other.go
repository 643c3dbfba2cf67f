//go:build !linux

package fslocal

import "errors"

// errNoRawOpen means openRaw cannot help here; the caller takes the os.Root
// path.
var errNoRawOpen = errors.New("openat2 unavailable")

// openRaw is Linux-only (openat2); elsewhere every open takes the os.Root
// path.
func (t *tree) openRaw(string) (int, error) { return -1, errNoRawOpen }

// openRawDir is openRaw for a directory, Linux-only as well.
func (t *tree) openRawDir(string) (int, error) { return -1, errNoRawOpen }

// rawOpenDisabled has no effect here: every open already takes the os.Root
// path.
var rawOpenDisabled bool
