package cmd_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// binary is the dshhost built for this test run.
var binary string

func TestMain(m *testing.M) {
	if addr := os.Getenv(floodVariable); addr != "" {
		flood(addr) // a child of TestHTTPKeepsServingDuringAFlood
		return
	}
	syscall.Umask(0o022) // the conformance cases' mode checks assume it
	dir, err := os.MkdirTemp("", "dshhost-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "dshhost")
	// Every checkpoint store of the run lives in the run's directory.
	if os.Getenv("DSH_STATE_DIR") == "" {
		os.Setenv("DSH_STATE_DIR", filepath.Join(dir, "state"))
	}
	build := exec.Command("go", "build", "-o", binary, "github.com/dsh-go/dsh/cmd/dshhost")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building dshhost:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// dshhost runs the binary in dir with args, stdin and a clean environment
// plus env.
func dshhost(t *testing.T, dir, stdin string, env []string, args ...string) result {
	t.Helper()
	c := exec.Command(binary, args...)
	c.Dir = dir
	c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}, env...)
	c.Stdin = bytes.NewBufferString(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running dshhost: %v", err)
	}
	return result{out.String(), errb.String(), code}
}

// workspace returns a fresh, symlink-free temporary directory.
func workspace(t *testing.T) string {
	t.Helper()
	w, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return w
}
