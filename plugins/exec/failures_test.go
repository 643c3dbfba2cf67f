package exec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/exec"
)

// TestEveryFailureBlocksOrAllows is plugin-protocol.md §5.2: a plugin that
// hangs, crashes, answers garbage or the wrong shape, or exits at start,
// under block and under allow. Under block the write fails with
// PLUGIN_UNAVAILABLE and writes nothing; under allow it goes on. Either
// way the call returns within the timeout (plus the time to start a
// process, which the bound below leaves room for on a loaded machine).
func TestEveryFailureBlocksOrAllows(t *testing.T) {
	const timeout = 300 * time.Millisecond
	cases := []struct {
		mode  string
		cause string // under block; "" when apply fails instead
	}{
		{"hang", "no answer within 300ms"},
		{"crash", "the process exited: exit status 3 (its stderr ended: crashing on fs/write-intent)"},
		{"garbage", `broken answer: not JSON: "this is not JSON"`},
		{"wrongshape", `broken answer: unknown decision "maybe"`},
		{"longline", "broken answer: a line over 1024 bytes"},
		{"closer", "no answer within 300ms"}, // killed 2s later (TestAChildThatClosesItsStdoutIsKilled)
		{"exit", ""},
		{"mute", ""},
	}
	exec.SetMaxLine(t, 1024)
	for _, c := range cases {
		for _, policy := range []wire.OnFailure{wire.Block, wire.Allow} {
			t.Run(c.mode+"/"+string(policy), func(t *testing.T) {
				t.Parallel()
				s := stacktest.New(t, stacktest.Options{})
				cfg := config(t, s, c.mode)
				cfg.Timeout, cfg.OnFailure = timeout, policy
				if c.mode == "exit" {
					// The exit, not the timeout, must end the wait: on a loaded
					// machine starting the child alone can take 300 ms.
					cfg.Timeout = 10 * time.Second
				}
				inst := mount(t, s, "p", cfg)
				if c.cause == "" { // the child never answers initialize
					want := map[string]string{
						"exit": `plugin "p" is unavailable: the process exited: exit status 1 (its stderr ended: boom)`,
						"mute": `plugin "p" is unavailable: no answer to initialize within 300ms`,
					}[c.mode]
					if policy == wire.Block {
						require.Equal(t, host.StateFailed, inst.State())
						assert.ErrorContains(t, inst.Err(), want)
						return
					}
					require.Equal(t, host.StateActive, inst.State(), "allow: ACTIVE without listeners")
					cause := want[len(`plugin "p" is unavailable: `):]
					assert.Equal(t, wire.State{Process: "failed: " + cause}, wire.States(s.Host)["p"])
				} else {
					require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
				}
				start := time.Now()
				res := write(s, s.Conversation("c"), "a.txt", "x")
				elapsed := time.Since(start)
				t.Logf("%s/%s: %s in %s", c.mode, policy, res.Text(), elapsed)
				assert.Less(t, elapsed, timeout+2*time.Second, "bounded by the timeout")
				if policy == wire.Allow || c.cause == "" {
					assert.False(t, res.IsError, res.Text())
					assert.FileExists(t, filepath.Join(s.W, "a.txt"))
					return
				}
				assert.Equal(t, `Error: plugin "p" is unavailable: `+c.cause, res.Text())
				assert.Equal(t, "PLUGIN_UNAVAILABLE", res.Code())
				assert.NoFileExists(t, filepath.Join(s.W, "a.txt"), "block writes nothing")
			})
		}
	}
}

// TestACrashedChildIsRestartedAndTheEntryKeepsItsPlace: after a crash the
// entry answers §2 while it is down, then the restarted child answers
// again, at the same place in the list.
func TestACrashedChildIsRestarted(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	marker := filepath.Join(t.TempDir(), "crashed")
	cfg := config(t, s, "guard", "DSH_EXEC_CRASH_ONCE", marker)
	inst := mount(t, s, "g", cfg)
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	first := wire.States(s.Host)["g"].Process
	assert.Regexp(t, `^running \(pid \d+\)$`, first)

	res := write(s, s.Conversation("c"), "crash.txt", "x")
	assert.Equal(t, "PLUGIN_UNAVAILABLE", res.Code(), res.Text())
	assert.Contains(t, res.Text(), "the process exited: exit status 3")
	require.FileExists(t, marker)

	require.Eventually(t, func() bool {
		return wire.States(s.Host)["g"].Process != first && len(wire.States(s.Host)["g"].Process) > 0 &&
			wire.States(s.Host)["g"].Process[:7] == "running"
	}, 10*time.Second, 20*time.Millisecond, "restarted after the first backoff (250ms)")
	assert.Regexp(t, `^running \(pid \d+, 1 restarts\)$`, wire.States(s.Host)["g"].Process)
	res = write(s, s.Conversation("c"), "secret.txt", "x")
	assert.Equal(t, "Error: no secrets: secret.txt", res.Text(), "the new child guards")
	res = write(s, s.Conversation("c"), "fine.txt", "x")
	assert.False(t, res.IsError, res.Text())
	_, err := os.Stat(marker)
	require.NoError(t, err)
}

// TestAChildThatClosesItsStdoutIsKilled: a child that can no longer answer
// but runs on is killed 2s after its stdout ended, and restarted.
func TestAChildThatClosesItsStdoutIsKilled(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	inst := mount(t, s, "c", config(t, s, "closer"))
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	require.Eventually(t, func() bool {
		return strings.HasPrefix(stateOf(s, "c").Process, "restarting")
	}, 10*time.Second, 20*time.Millisecond)
	assert.Contains(t, stateOf(s, "c").Process, "the process exited: signal: killed")
}
