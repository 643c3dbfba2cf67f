package fslocal_test

import (
	"os"
	"syscall"
	"testing"
)

// TestMain pins the umask the mode checks assume (022) and lets the test
// binary act as the child process of the crash and permission tests when
// re-executed with their environment variables.
func TestMain(m *testing.M) {
	syscall.Umask(0o022)
	if os.Getenv(crashChildEnv) != "" {
		runCrashChild()
		return
	}
	if os.Getenv(killChildEnv) != "" {
		runKillChild()
		return
	}
	if os.Getenv(crossKillEnv) != "" {
		runCrossKillChild()
		return
	}
	if os.Getenv(raceChildEnv) != "" {
		runRaceChild()
		return
	}
	os.Exit(m.Run())
}
