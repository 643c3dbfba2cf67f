package docs_test

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheDocumentedBuildIsStatic runs README.md's build command and checks
// that the binary is fully static: an ELF file with no interpreter (no
// dynamic loader) and no dynamic section.
func TestTheDocumentedBuildIsStatic(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the ELF check is for Linux")
	}
	m := regexp.MustCompile("(?m)^(CGO_ENABLED=0 go build -o dshhost ./cmd/dshhost)").FindStringSubmatch(read(t, "README.md"))
	require.NotNil(t, m, "README.md documents the static build")
	fields := strings.Fields(m[1])
	out := filepath.Join(t.TempDir(), "dshhost")
	cmd := exec.Command("go", "build", "-o", out, fields[len(fields)-1])
	cmd.Dir = root
	cmd.Env = append(os.Environ(), fields[0])
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, string(b))

	f, err := elf.Open(out)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		assert.NotEqual(t, elf.PT_INTERP, p.Type, "a static binary has no interpreter")
		assert.NotEqual(t, elf.PT_DYNAMIC, p.Type, "a static binary has no dynamic section")
	}
}

// TestOnlyTheTaggedBuildLinksNATS: the default dshhost links nothing of
// the NATS project, the build README.md gives with -tags natsbus links its
// client and server (docs/fleet.md).
func TestOnlyTheTaggedBuildLinksNATS(t *testing.T) {
	require.Regexp(t, "(?m)^CGO_ENABLED=0 go build -tags natsbus -o dshhost ./cmd/dshhost", read(t, "README.md"))
	deps := func(tags ...string) string {
		args := append([]string{"list", "-deps"}, tags...)
		cmd := exec.Command("go", append(args, "./cmd/dshhost")...)
		cmd.Dir = root
		out, err := cmd.Output()
		require.NoError(t, err)
		return string(out)
	}
	assert.NotContains(t, deps(), "github.com/nats-io/", "the default build")
	withTag := deps("-tags", "natsbus")
	assert.Contains(t, withTag, "github.com/nats-io/nats.go\n")
	assert.Contains(t, withTag, "github.com/nats-io/nats-server/v2/server\n")
	assert.Contains(t, withTag, "github.com/dsh-go/dsh/plugins/natsbus\n")
}
