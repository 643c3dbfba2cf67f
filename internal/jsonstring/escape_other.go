//go:build !amd64

package jsonstring

// hasEscapeRun says escapeRun copies nothing outside amd64: Append skips
// plain runs eight bytes at a time there.
const hasEscapeRun = false

func escapeRun([]byte, string) (written, read int) { return 0, 0 }
