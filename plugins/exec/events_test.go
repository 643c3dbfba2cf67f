package exec_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/tools"
)

// settle disposes the entry, which flushes its queue to the child and
// waits for it to exit, so that everything it recorded is on disk.
func settle(t *testing.T, inst *host.Instance) {
	t.Helper()
	require.NoError(t, inst.Dispose(context.Background()))
}

// TestEveryToolPathAsksWithItsArguments: write, edit and the editor's
// create, str_replace and insert each ask their intent with the call's
// arguments, the target's key and rel, and the actor.
func TestEveryToolPathAsksWithItsArguments(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{ToolEditor: map[string]any{}})
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	inst := mount(t, s, "g", config(t, s, "guard", "DSH_EXEC_RECORD", rec))
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	conv := s.Conversation("stdio/c/t")
	conv.Principal = "stdio"
	call := func(tool, args string) {
		t.Helper()
		res := s.Registry.Execute(context.Background(), tool, json.RawMessage(args), &tools.Exec{CallID: "id-" + tool, Conv: conv})
		require.False(t, res.IsError, "%s: %s", tool, res.Text())
	}
	call("write", `{"file_path":"a.txt","content":"one\n"}`)
	call("edit", `{"file_path":"a.txt","old_string":"one","new_string":"two"}`)
	call("str_replace_editor", `{"command":"create","path":"`+s.W+`/b.txt","file_text":"x\n"}`)
	call("str_replace_editor", `{"command":"str_replace","path":"`+s.W+`/b.txt","old_str":"x","new_str":"y"}`)
	call("str_replace_editor", `{"command":"insert","path":"`+s.W+`/b.txt","insert_line":1,"new_str":"z"}`)
	res := s.Call(context.Background(), conv, "str_replace_editor", `{"command":"create","path":"`+s.W+`/secret.key","file_text":"k"}`)
	assert.Equal(t, "Error: no secrets: secret.key", res.Text(), "the editor's create is guarded too")
	settle(t, inst)

	writes := records(t, rec, "fs/write-intent")
	edits := records(t, rec, "fs/edit-intent")
	require.Len(t, writes, 3)
	require.Len(t, edits, 3)
	actor := func(tool string) map[string]any {
		return map[string]any{"conversation": "stdio/c/t", "principal": "stdio", "tool": tool, "call": "id-" + tool}
	}
	a := filepath.Join(s.W, "a.txt")
	assert.Equal(t, map[string]any{"target": map[string]any{"path": a, "key": a, "rel": "a.txt"}, "actor": actor("write"),
		"arguments": map[string]any{"file_path": "a.txt", "content": "one\n"}}, writes[0])
	assert.Equal(t, map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "two"}, edits[0]["arguments"])
	assert.Equal(t, actor("edit"), edits[0]["actor"])
	assert.Equal(t, "x\n", writes[1]["arguments"].(map[string]any)["file_text"])
	assert.Equal(t, "b.txt", writes[1]["target"].(map[string]any)["rel"])
	assert.Equal(t, "str_replace", edits[1]["arguments"].(map[string]any)["command"])
	assert.Equal(t, map[string]any{"command": "insert", "path": s.W + "/b.txt", "insert_line": 1.0, "new_str": "z"}, edits[2]["arguments"])
	assert.Equal(t, actor("str_replace_editor"), edits[2]["actor"])
}

// TestObservationsAndClosuresAreForwarded: fs/observed after every read,
// write and edit (and an absent read), conversation/closed, in order.
func TestObservationsAndClosuresAreForwarded(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	inst := mount(t, s, "r", config(t, s, "guard", "DSH_EXEC_RECORD", rec, "DSH_EXEC_EVENTS", "fs/observed,conversation/closed"))
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	conv := s.Conversation("cli/run/1")
	require.False(t, write(s, conv, "a.txt", "one\n").IsError)
	require.False(t, s.Call(context.Background(), conv, "read", `{"file_path":"a.txt"}`).IsError)
	require.False(t, s.Call(context.Background(), conv, "edit", `{"file_path":"a.txt","old_string":"one","new_string":"two"}`).IsError)
	s.Call(context.Background(), conv, "read", `{"file_path":"gone.txt"}`)
	require.NoError(t, events.ConversationClosed.Emit(context.Background(), s.Host.Root(), "cli/run/1"))
	settle(t, inst)

	assert.Empty(t, records(t, rec, "fs/write-intent"), "not declared: not asked")
	obs := records(t, rec, "fs/observed")
	require.Len(t, obs, 4)
	var tools, kinds []string
	for _, o := range obs {
		tools = append(tools, o["actor"].(map[string]any)["tool"].(string))
		kinds = append(kinds, o["kind"].(string))
	}
	assert.Equal(t, []string{"write", "read", "edit", "read"}, tools)
	assert.Equal(t, []string{"present", "present", "present", "absent"}, kinds)
	assert.Nil(t, obs[3]["version"])
	assert.Regexp(t, `^\d+:\d+:\d+:\d+:\d+$`, obs[2]["version"])
	assert.Equal(t, "gone.txt", obs[3]["target"].(map[string]any)["rel"])
	assert.Equal(t, []map[string]any{{"conversation": "cli/run/1"}}, records(t, rec, "conversation/closed"))
}

func TestLargeArgumentsAreOmitted(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	cfg := config(t, s, "guard", "DSH_EXEC_RECORD", rec)
	cfg.MaxArgumentBytes = 100
	inst := mount(t, s, "g", cfg)
	require.False(t, write(s, s.Conversation("c"), "big.txt", strings.Repeat("x", 200)).IsError)
	require.False(t, write(s, s.Conversation("c"), "small.txt", "x").IsError)
	settle(t, inst)
	w := records(t, rec, "fs/write-intent")
	require.Len(t, w, 2)
	assert.Nil(t, w[0]["arguments"])
	assert.Equal(t, true, w[0]["argumentsOmitted"])
	assert.NotContains(t, w[1], "argumentsOmitted")
	assert.Equal(t, "x", w[1]["arguments"].(map[string]any)["content"])
}

// TestAQueueThatOverflowsDropsAndCounts: a child that stops reading
// leaves notifications in the queue; past its bound the oldest are
// dropped, counted in the entry's state, and no call waits.
func TestAQueueThatOverflowsDropsAndCounts(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	cfg := config(t, s, "deaf", "DSH_EXEC_EVENTS", "fs/observed")
	cfg.Queue = 10
	inst := mount(t, s, "r", cfg)
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	require.False(t, write(s, s.Conversation("c"), "a.txt", "x").IsError)
	start := time.Now()
	for range 3000 {
		require.False(t, s.Call(context.Background(), s.Conversation("c"), "read", `{"file_path":"a.txt"}`).IsError)
	}
	t.Logf("3000 reads with a deaf recorder in %s", time.Since(start))
	st := stateOf(s, "r")
	assert.Greater(t, st.Dropped, uint64(0), "the pipe holds a few hundred; the rest overflow the queue of 10")
	assert.Regexp(t, `^running`, st.Process)
}

func TestDisposeEndsTheChild(t *testing.T) {
	for _, mode := range []string{"guard", "sticky", "stubborn"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := stacktest.New(t, stacktest.Options{})
			pidFile := filepath.Join(t.TempDir(), "pid")
			inst := mount(t, s, "g", config(t, s, mode, "DSH_EXEC_PIDFILE", pidFile))
			require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
			start := time.Now()
			require.NoError(t, inst.Dispose(context.Background()))
			took := time.Since(start)
			t.Logf("%s: disposed in %s", mode, took)
			pid := readPid(t, pidFile)
			assert.False(t, alive(pid), "the child is gone")
			switch mode {
			case "guard":
				assert.Less(t, took, 2*time.Second, "it exits at the end of its stdin")
			case "sticky":
				assert.GreaterOrEqual(t, took, 2*time.Second, "SIGTERM after 2s")
				assert.Less(t, took, 4*time.Second)
			case "stubborn":
				assert.GreaterOrEqual(t, took, 4*time.Second, "SIGKILL 2s after SIGTERM")
			}
		})
	}
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var pid int
	_, err = fmtSscan(strings.TrimSpace(string(b)), &pid)
	require.NoError(t, err)
	return pid
}
