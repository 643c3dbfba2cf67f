package cmd

import (
	"os"
	"runtime/debug"
)

// The garbage collector's settings for `dshhost serve`, a long-lived process
// whose live heap is small (a few MB) but whose calls each allocate their
// response, up to tens of MB for an edit of a 10 MB file.
const (
	// serveGCPercent lets the heap grow to five times the live heap between
	// collections (Go's default is twice): a warm read of a 2,000-line file
	// then triggers a collection every few calls instead of every call.
	serveGCPercent = 400
	// serveMemoryLimit is the soft limit, in bytes, at which the collector
	// works harder whatever serveGCPercent allows: a large edit's garbage is
	// collected before the process grows past it (32 MiB).
	serveMemoryLimit = 32 << 20
)

// tuneGC applies serveGCPercent and serveMemoryLimit, each unless the user
// set its environment variable (GOGC, GOMEMLIMIT), which the runtime has
// already applied. The read and list benchmarks of cmd/dshbench are how the
// values were chosen.
func tuneGC() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(serveGCPercent)
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); !ok {
		debug.SetMemoryLimit(serveMemoryLimit)
	}
}
