package exec_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/exec"
	"github.com/dsh-go/dsh/plugins/tools"
)

// self is the test binary, which is also every child (child_test.go).
func self(t testing.TB) string {
	t.Helper()
	p, err := os.Executable()
	require.NoError(t, err)
	return p
}

// config returns an exec config that runs the test binary in mode.
func config(t testing.TB, s *stacktest.Stack, mode string, env ...string) exec.Config {
	cfg := exec.DefaultConfig()
	cfg.Command = []string{self(t)}
	cfg.Env = map[string]string{"DSH_EXEC_CHILD": mode}
	for i := 0; i+1 < len(env); i += 2 {
		cfg.Env[env[i]] = env[i+1]
	}
	cfg.Workspace = s.W
	return cfg
}

// mount mounts cfg as entry id and waits for it to settle.
func mount(t testing.TB, s *stacktest.Stack, id string, cfg exec.Config) *host.Instance {
	t.Helper()
	inst, err := s.Host.Plugin(context.Background(), exec.Plugin, cfg, host.ID(id))
	require.NoError(t, err)
	_ = inst.Wait(t.Context())
	return inst
}

// records reads the messages a child recorded, by method.
func records(t *testing.T, file, method string) []map[string]any {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		if m["method"] == method {
			out = append(out, m["params"].(map[string]any))
		}
	}
	return out
}

func write(s *stacktest.Stack, conv *tools.Conversation, path, content string) tools.Result {
	args, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
	return s.Call(context.Background(), conv, "write", string(args))
}

func TestAGuardDeniesBeforeThePolicyDecides(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	inst := mount(t, s, "guard", config(t, s, "guard"))
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	conv := s.Conversation("c1")

	res := write(s, conv, "secret.txt", "x")
	assert.True(t, res.IsError)
	assert.Equal(t, "Error: no secrets: secret.txt", res.Text())
	assert.Equal(t, &tools.ErrorInfo{Name: "PluginError", Code: "SECRET_PATH"}, res.Error.Info)
	assert.NoFileExists(t, filepath.Join(s.W, "secret.txt"), "nothing is written")

	require.NoError(t, os.WriteFile(filepath.Join(s.W, "secret-old.txt"), []byte("x"), 0o644))
	res = write(s, conv, "secret-old.txt", "y")
	assert.Equal(t, "Error: no secrets: secret-old.txt", res.Text(), "the wire guard runs before fspolicy: refused as a secret, not as unread")

	res = write(s, conv, "notes.txt", "hello\n")
	assert.False(t, res.IsError, res.Text())
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "unread.txt"), []byte("x"), 0o644))
	res = write(s, conv, "unread.txt", "y")
	assert.Equal(t, "FS_NOT_OBSERVED", res.Code(), "next goes on to fspolicy, which still decides")
}

func stateOf(s *stacktest.Stack, id string) wire.State { return wire.States(s.Host)[id] }

func fmtSscan(str string, v *int) (int, error) { return fmt.Sscan(str, v) }

// alive reports whether pid still runs (signal 0 reaches it).
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }
