package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shellPlugin is the smallest exec plugin: it answers initialize wanting
// nothing and then reads its stdin to the end.
const shellPlugin = `read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"name":"quiet","version":"1","events":[],"tools":[]}}'
cat >/dev/null
`

// TestPluginsShowsEachExecEntrysProcess: `dshhost plugins` adds the
// PROCESS and DROPPED columns when the deployment has exec entries (and
// --json their fields); an entry whose child cannot start under allow is
// ACTIVE and says why.
func TestPluginsShowsEachExecEntrysProcess(t *testing.T) {
	w := workspace(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "quiet.sh"), []byte(shellPlugin), 0o755))
	dep := filepath.Join(dir, "dsh.yaml")
	require.NoError(t, os.WriteFile(dep, []byte(`plugins:
  - name: fslocal
  - name: fspolicy
  - name: toolfs
  - name: exec
    id: quiet
    config: {command: [sh, quiet.sh]}
  - name: exec
    id: absent
    config: {command: [./no-such-plugin], onFailure: allow}
`), 0o644))
	r := dshhost(t, w, "", nil, "plugins", "--config", dep)
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	assert.Regexp(t, `^ID +NAME +STATE +PROVIDES +INJECTS +PROCESS +DROPPED +ERROR$`, lines[0])
	assert.Regexp(t, `^fslocal +fslocal +ACTIVE +fs +- +- +-`, lines[2])
	assert.Regexp(t, `^quiet +exec +ACTIVE +- +tools +running \(pid \d+\) +0 *$`, lines[5])
	assert.Regexp(t, `^absent +exec +ACTIVE +- +tools +failed: cannot start "./no-such-plugin": no such file or directory +0 *$`, lines[6])

	r = dshhost(t, w, "", nil, "plugins", "--json", "--config", dep)
	require.Equal(t, 0, r.code, r.stderr)
	var out []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.Len(t, out, 6)
	assert.NotContains(t, out[1], "process", "not a carrier entry")
	assert.Regexp(t, regexp.MustCompile(`^running \(pid \d+\)$`), out[4]["process"])
	assert.Equal(t, 0.0, out[4]["dropped"])

	r = dshhost(t, w, "", nil, "plugins")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `^ID +NAME +STATE +PROVIDES +INJECTS +ERROR\n`, r.stdout, "no exec entry: the table as before")
}
