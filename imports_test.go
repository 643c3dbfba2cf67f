package dsh_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// module is this module's path, with the slash that starts a package's
// path inside it.
const module = "github.com/dsh-go/dsh/"

// allowed reports whether the package from may import the package to, both
// paths inside the module (style §2: cmd → plugins → events, fsapi → host,
// and no plugin imports another's implementation):
//
//   - host imports nothing of ours;
//   - an internal package imports only other internal packages (never a
//     plugin contract: it is a helper below every layer);
//   - plugins/fsapi imports the host (its service key);
//   - events imports the host and plugins/fsapi (payloads carry targets);
//   - a plugin imports the contracts (events, plugins/fsapi,
//     plugins/tools, plugins/frontend), the host and internal packages,
//     never another plugin; plugins/standard, the default set, imports the
//     plugins;
//   - config imports the host alone (plugins are found by name);
//   - cmd may import any of those layers, but nothing imports cmd except a
//     binary (cmd/dshhost, a custom one in examples);
//   - the example plugins use the public API only.
//
// Test-support packages (a last segment ending in "test": host/hosttest,
// plugins/fsapi/fsapitest, internal/stacktest) are exempt: they assemble
// stacks for other packages' tests.
func allowed(from, to string) bool {
	under := func(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
	contract := to == "events" || under(to, "events") || to == "host" ||
		to == "plugins/fsapi" || to == "plugins/tools" || to == "plugins/frontend"
	switch {
	case strings.HasSuffix(from[strings.LastIndex(from, "/")+1:], "test"):
		return true
	case from == "host":
		return false
	case under(from, "internal"):
		return under(to, "internal")
	case from == "plugins/fsapi":
		return to == "host" || under(to, "internal")
	case under(from, "events"):
		return to == "host" || to == "plugins/fsapi" || under(to, "events")
	case from == "plugins/standard":
		return under(to, "plugins")
	case under(from, "plugins"):
		return contract || under(to, "internal")
	case from == "config":
		return to == "host"
	case from == "cmd/dshhost", from == "examples/dshhost-custom":
		return to == "cmd" || to == "plugins/standard" || under(to, "examples")
	case under(from, "cmd"):
		return !under(to, "examples") && !under(to, "cmd")
	case under(from, "examples"):
		return contract
	}
	return false
}

// violations lists every import edge inside the module that allowed
// forbids, as "from → to", from `go list -deps` of every package (test
// files aside); overlay, when not empty, is a `go list -overlay` file, and
// tags the build tags of the build.
func violations(t *testing.T, overlay string, tags ...string) []string {
	t.Helper()
	args := []string{"list", "-deps", "-json=ImportPath,Imports,Standard"}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append(args, "./...")...)
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", exitStderr(err))
	var bad []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
			Standard   bool
		}
		require.NoError(t, dec.Decode(&p))
		from, ours := strings.CutPrefix(p.ImportPath, module)
		if !ours || p.Standard {
			continue
		}
		for _, imp := range p.Imports {
			if to, ok := strings.CutPrefix(imp, module); ok && !allowed(from, to) {
				bad = append(bad, from+" → "+to)
			}
		}
	}
	slices.Sort(bad)
	return bad
}

func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// Every import edge of the module keeps the direction of style §2,
// whatever any document says, also in the conformance build (which links
// in plugins/conformance).
func TestImportsKeepTheirDirection(t *testing.T) {
	assert.Empty(t, violations(t, ""))
	assert.Empty(t, violations(t, "", "conformance"))
}

// The fence is not vacuous: a file planted in toolfs (through go list's
// overlay, so the tree is untouched) that imports fslocal, and one in the
// host that imports a plugin contract, are each reported.
func TestTheFenceCatchesAPlantedImport(t *testing.T) {
	dir := t.TempDir()
	plant := func(pkg, imp string) string {
		abs, err := filepath.Abs(filepath.Join(pkg, "zz_planted.go"))
		require.NoError(t, err)
		src := filepath.Join(dir, strings.ReplaceAll(pkg, "/", "_")+".go")
		name := filepath.Base(pkg)
		require.NoError(t, os.WriteFile(src, []byte("package "+name+"\n\nimport _ \""+module+imp+"\"\n"), 0o644))
		return `"` + abs + `": "` + src + `"`
	}
	overlay := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(overlay, []byte(`{"Replace": {`+
		plant("plugins/toolfs", "plugins/fslocal")+", "+plant("host", "internal/quote")+`}}`), 0o644))
	assert.Equal(t, []string{"host → internal/quote", "plugins/toolfs → plugins/fslocal"}, violations(t, overlay))
}
