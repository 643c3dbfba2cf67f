package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
)

// execYAML is a deployment with two exec entries running quiet.sh (a
// shell plugin that wants nothing), a's settings set to n and b's command
// to bCommand.
func execYAML(dir string, n int, bCommand string) string {
	return "plugins:\n  - name: fslocal\n  - name: toolfs\n" +
		"  - name: exec\n    id: a\n    config: {command: [sh, " + filepath.Join(dir, "quiet.sh") + "], settings: {n: " + strings.Repeat("1", n) + "}}\n" +
		"  - name: exec\n    id: b\n    config: {command: [" + bCommand + "]}\n"
}

// TestAReloadRestartsOnlyTheExecEntriesThatChanged: plugin-protocol.md
// §3, a reload restarts the exec entries whose config changed (a new
// child) and keeps the others' children; a change whose child cannot
// initialize is refused and the running child stays.
func TestAReloadRestartsOnlyTheExecEntriesThatChanged(t *testing.T) {
	dir := t.TempDir()
	quiet := "read -r line\nprintf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"events\":[],\"tools\":[]}}'\ncat >/dev/null\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "quiet.sh"), []byte(quiet), 0o644))
	sh := "sh, " + filepath.Join(dir, "quiet.sh")
	l := startLive(t, execYAML(dir, 1, sh))
	pids := func() (string, string) {
		st := wire.States(l.rt.host)
		return st["a"].Process, st["b"].Process
	}
	a0, b0 := pids()
	require.Regexp(t, `^running \(pid \d+\)$`, a0)
	require.Regexp(t, `^running \(pid \d+\)$`, b0)

	l.replace(execYAML(dir, 2, sh))
	rep := l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, "restarted [a]", rep.String())
	a1, b1 := pids()
	assert.NotEqual(t, a0, a1, "a has a new child")
	assert.Regexp(t, `^running \(pid \d+\)$`, a1)
	assert.Equal(t, b0, b1, "b's child is the same")

	l.replace(execYAML(dir, 2, "./missing-plugin"))
	rep = l.next()
	require.Error(t, rep.Err)
	assert.Contains(t, rep.Err.Error(), `plugin entry "b"`)
	assert.Contains(t, rep.Err.Error(), `plugin "b" is unavailable: cannot start "./missing-plugin"`)
	assert.Equal(t, host.StateActive, l.rt.host.Instance("b").State(), "the old config is back")
	_, b2 := pids()
	assert.Regexp(t, `^running \(pid \d+\)$`, b2)
	<-l.failures
}
