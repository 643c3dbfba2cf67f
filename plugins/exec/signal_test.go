package exec_test

import (
	"os/signal"
	"syscall"
)

// ignoreTerm makes the stubborn child survive SIGTERM.
func ignoreTerm() { signal.Ignore(syscall.SIGTERM) }
