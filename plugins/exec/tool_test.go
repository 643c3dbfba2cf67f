package exec_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/exec"
	"github.com/dsh-go/dsh/plugins/tools"
)

func TestDeclaredToolsAreRegisteredAndCalled(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	inst := mount(t, s, "t", config(t, s, "guard", "DSH_EXEC_TOOL", "shout", "DSH_EXEC_RECORD", rec))
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())

	tool, ok := s.Registry.Lookup("shout")
	require.True(t, ok)
	assert.Equal(t, "Shouts its text back. (runs outside the workspace sandbox)", tool.Description)
	assert.True(t, tool.OpenWorld, "MCP says it reaches beyond the workspace (openWorldHint)")
	assert.Equal(t, "Shout", tool.Title)
	assert.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, string(tool.Parameters))

	exec := &tools.Exec{CallID: "call-7", Conv: s.Conversation("stdio/c/x")}
	res := s.Registry.Execute(context.Background(), "shout", json.RawMessage(`{"text":"hi"}`), exec)
	assert.False(t, res.IsError, res.Text())
	assert.Equal(t, "HI!", res.Text())

	res = s.Registry.Execute(context.Background(), "shout", json.RawMessage(`{"text":"fail"}`), exec)
	assert.Equal(t, "Error: cannot shout that", res.Text())
	assert.Equal(t, &tools.ErrorInfo{Name: "PluginError", Code: "TOO_QUIET"}, res.Error.Info)

	res = s.Registry.Execute(context.Background(), "shout", json.RawMessage(`{}`), exec)
	assert.Equal(t, `Error: invalid arguments: missing required property "text"`, res.Text(), "the registry validates against the declared schema")

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res = s.Registry.Execute(ctx, "shout", json.RawMessage(`{"text":"wait"}`), &tools.Exec{CallID: "call-8", Conv: s.Conversation("c")})
	assert.True(t, res.IsError)
	assert.Equal(t, "Error: context deadline exceeded", res.Text(), "a plugin's tool runs under the call's own time limit")
	settle(t, inst)

	calls := records(t, rec, "tools/call")
	require.Len(t, calls, 3)
	assert.Equal(t, map[string]any{"name": "shout", "arguments": map[string]any{"text": "hi"},
		"actor": map[string]any{"conversation": "stdio/c/x", "principal": "test", "tool": "shout", "call": "call-7"}}, calls[0])
	assert.Equal(t, []map[string]any{{"call": "call-8"}}, records(t, rec, "cancel"), "the cancelled call is cancelled in the child")
	_, ok = s.Registry.Lookup("shout")
	assert.False(t, ok, "the tool goes with its entry")
}

func TestATakenToolNameIsRefused(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	inst := mount(t, s, "t", config(t, s, "guard", "DSH_EXEC_TOOL", "read"))
	assert.Equal(t, host.StateFailed, inst.State())
	assert.EqualError(t, inst.Err(), `plugin "exec": exec "t": tool "read" is already registered`)

	cfg := config(t, s, "guard", "DSH_EXEC_TOOL", "read")
	cfg.OnFailure = "allow"
	inst = mount(t, s, "t2", cfg)
	assert.Equal(t, host.StateActive, inst.State())
	assert.Equal(t, `failed: exec "t2": tool "read" is already registered`, stateOf(s, "t2").Process)
	res := write(s, s.Conversation("c"), "secret.txt", "x")
	assert.False(t, res.IsError, "allow: no listeners, so no guard")
}

func TestAToolWhoseChildIsDownIsUnavailable(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	marker := filepath.Join(t.TempDir(), "crashed")
	inst := mount(t, s, "t", config(t, s, "guard", "DSH_EXEC_TOOL", "shout", "DSH_EXEC_CRASH_ONCE", marker))
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	write(s, s.Conversation("c"), "crash.txt", "x") // the child exits
	res := s.Call(context.Background(), s.Conversation("c"), "shout", `{"text":"hi"}`)
	// Down (the backoff is 250ms): the same text and code as §2, whatever
	// onFailure says.
	assert.Regexp(t, `^Error: plugin "t" is unavailable: (the process is not running \()?the process exited: exit status 3`, res.Text())
	assert.Equal(t, "PLUGIN_UNAVAILABLE", res.Code())
	require.Eventually(t, func() bool {
		return !s.Call(context.Background(), s.Conversation("c"), "shout", `{"text":"hi"}`).IsError
	}, 10*time.Second, 20*time.Millisecond, "the restarted child serves the tool declared by the first")
}

func TestMountThenDisposeLeavesNothing(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	base := hosttest.TakeBaseline(s.Host)
	inst := mount(t, s, "t", config(t, s, "guard", "DSH_EXEC_TOOL", "shout"))
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	require.NoError(t, inst.Dispose(context.Background()))
	base.Assert(t)
}

func TestConfigErrors(t *testing.T) {
	bad := exec.DefaultConfig()
	bad.Timeout, bad.Queue, bad.MaxArgumentBytes, bad.OnFailure = 0, 0, 0, "warn"
	bad.Env = map[string]string{"A=B": "x"}
	assert.EqualError(t, bad.Validate(), `plugin "exec": invalid config: command: exec: a command is required: the child's argv, e.g. [python3, guard.py]; `+
		`env: exec: "A=B" is not a variable name; timeout: exec: must be a positive duration, e.g. 2s; `+
		`onFailure: exec: must be block or allow, not "warn"; queue: exec: must be a positive integer; maxArgumentBytes: exec: must be a positive integer`)
	bad = exec.DefaultConfig()
	bad.Command = []string{" "}
	assert.EqualError(t, bad.Validate(), `plugin "exec": invalid config: command[0]: exec: the program must be a non-empty string`)

	s := stacktest.New(t, stacktest.Options{})
	cfg := config(t, s, "guard")
	cfg.Command = []string{"no-such-program-dsh"}
	inst := mount(t, s, "x", cfg)
	assert.EqualError(t, inst.Err(), `plugin "exec": plugin "x" is unavailable: cannot start "no-such-program-dsh": executable file not found in $PATH`)
	cfg.Command = []string{"./missing.py"}
	cfg.Dir = t.TempDir()
	inst = mount(t, s, "y", cfg)
	assert.EqualError(t, inst.Err(), `plugin "exec": plugin "y" is unavailable: cannot start "./missing.py": no such file or directory`)
}
