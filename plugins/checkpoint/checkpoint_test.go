package checkpoint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/checkpoint"
	"github.com/dsh-go/dsh/plugins/tools"
)

// stack mounts the default stack with the checkpoint plugin, its store in
// a fresh state directory.
func stack(t *testing.T, cfg map[string]any) *stacktest.Stack {
	t.Helper()
	if os.Getenv("DSH_STATE_DIR") == "" || !strings.HasPrefix(os.Getenv("DSH_STATE_DIR"), os.TempDir()) {
		t.Setenv("DSH_STATE_DIR", t.TempDir())
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	return stacktest.New(t, stacktest.Options{Checkpoint: cfg})
}

// call runs tool in conv and fails the test when it errs.
func call(t *testing.T, s *stacktest.Stack, conv *tools.Conversation, tool, args string) string {
	t.Helper()
	res := s.Call(t.Context(), conv, tool, args)
	require.False(t, res.IsError, "%s %s: %s", tool, args, res.Text())
	return res.Text()
}

func file(t *testing.T, s *stacktest.Stack, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.W, name))
	if os.IsNotExist(err) {
		return "<absent>"
	}
	require.NoError(t, err)
	return string(b)
}

func put(t *testing.T, s *stacktest.Stack, name, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(s.W, name)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(s.W, name), []byte(text), 0o644))
}

var stepNumber = regexp.MustCompile(`(?m)^(\d+) `)

// steps returns the step numbers checkpoints lists for conv.
func steps(t *testing.T, s *stacktest.Stack, conv *tools.Conversation) []string {
	t.Helper()
	var out []string
	for _, m := range stepNumber.FindAllStringSubmatch(call(t, s, conv, "checkpoints", `{}`), -1) {
		out = append(out, m[1])
	}
	return out
}

func TestAStepIsRecordedPerMutatingCallAndRewound(t *testing.T) {
	s := stack(t, nil)
	conv := s.Conversation("c1")
	put(t, s, "a.txt", "one\r\ntwo\r\n") // CRLF kept exactly
	put(t, s, "b.txt", "bee\n")
	call(t, s, conv, "read", `{"file_path":"a.txt"}`)
	call(t, s, conv, "edit", `{"file_path":"a.txt","old_string":"two","new_string":"TWO"}`)
	call(t, s, conv, "write", `{"file_path":"new.txt","content":"fresh\n"}`)
	call(t, s, conv, "read", `{"file_path":"b.txt"}`)
	call(t, s, conv, "delete", `{"path":"b.txt"}`)
	call(t, s, conv, "move", `{"source":"new.txt","destination":"moved.txt"}`)
	list := call(t, s, conv, "checkpoints", `{}`)
	lines := strings.Split(list, "\n")
	require.Len(t, lines, 4, list)
	assert.Regexp(t, `^1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ edit `+regexp.QuoteMeta(filepath.Join(s.W, "a.txt"))+` \+1 -1$`, lines[0])
	assert.Regexp(t, ` write .*new.txt created \+1 -0$`, lines[1])
	assert.Regexp(t, ` delete .*b.txt deleted \+0 -1$`, lines[2])
	assert.Regexp(t, ` move .*new.txt deleted \+0 -1; .*moved.txt created \+1 -0$`, lines[3])

	out := call(t, s, conv, "rewind", `{"to_step":1}`)
	assert.Equal(t, "rewound to step 1: 1 restored, 1 deleted, 0 left alone; this rewind is step 5 (rewind to step 4 to undo it)\n"+
		"restored "+filepath.Join(s.W, "b.txt")+"\n"+
		"deleted "+filepath.Join(s.W, "moved.txt")+"\n"+
		"unchanged "+filepath.Join(s.W, "new.txt"), out, "new.txt was created after step 1 and moved away since")
	assert.Equal(t, "one\r\nTWO\r\n", file(t, s, "a.txt"))
	assert.Equal(t, "bee\n", file(t, s, "b.txt"))
	assert.Equal(t, "<absent>", file(t, s, "new.txt"), "created after step 1, it never was")
	assert.Equal(t, "<absent>", file(t, s, "moved.txt"))

	out = call(t, s, conv, "rewind", `{"to_step":0}`)
	assert.Contains(t, out, "rewound to step 0: 1 restored")
	assert.Equal(t, "one\r\ntwo\r\n", file(t, s, "a.txt"), "exact bytes, CRLF and all")

	// The rewinds are steps: undoing both gives the state after step 4.
	out = call(t, s, conv, "rewind", `{"to_step":4}`)
	assert.Contains(t, out, "rewound to step 4:")
	assert.Equal(t, "one\r\nTWO\r\n", file(t, s, "a.txt"))
	assert.Equal(t, "<absent>", file(t, s, "b.txt"))
	assert.Equal(t, "fresh\n", file(t, s, "moved.txt"))
	assert.Equal(t, "<absent>", file(t, s, "new.txt"))
}

func TestAFileChangedByAnotherIsLeftAlone(t *testing.T) {
	s := stack(t, nil)
	conv := s.Conversation("c1")
	call(t, s, conv, "write", `{"file_path":"a.txt","content":"mine\n"}`)
	call(t, s, conv, "write", `{"file_path":"b.txt","content":"mine too\n"}`)
	put(t, s, "b.txt", "theirs\n") // another process
	out := call(t, s, conv, "rewind", `{"to_step":0}`)
	assert.Contains(t, out, "left alone "+filepath.Join(s.W, "b.txt")+": changed since step 2 by someone else")
	assert.Equal(t, "<absent>", file(t, s, "a.txt"))
	assert.Equal(t, "theirs\n", file(t, s, "b.txt"))

	// Same bytes, another version (a formatter that changed nothing): not a change.
	call(t, s, conv, "write", `{"file_path":"c.txt","content":"same\n"}`)
	put(t, s, "c.txt", "same\n")
	out = call(t, s, conv, "rewind", `{"to_step":3}`)
	assert.Contains(t, out, "deleted "+filepath.Join(s.W, "c.txt"))

	// Changed by another between two steps: put back as the later step
	// found it, which keeps the other's change, and said so.
	call(t, s, conv, "write", `{"file_path":"e.txt","content":"mine\n"}`)
	e := stepNumber.FindAllStringSubmatch(call(t, s, conv, "checkpoints", `{}`), -1)
	put(t, s, "e.txt", "theirs\n")
	call(t, s, conv, "read", `{"file_path":"e.txt"}`)
	call(t, s, conv, "write", `{"file_path":"e.txt","content":"mine again\n"}`)
	first := e[len(e)-1][1]
	out = call(t, s, conv, "rewind", `{"to_step":`+first+`}`)
	n, _ := strconv.Atoi(first)
	assert.Contains(t, out, "\nrestored "+filepath.Join(s.W, "e.txt")+fmt.Sprintf(" (as before step %d: it changed after step %d outside the recorded steps)", n+1, n))
	assert.Equal(t, "theirs\n", file(t, s, "e.txt"))

	// Put back by another (or by a rewind a crash cut short): nothing to do.
	call(t, s, conv, "write", `{"file_path":"d.txt","content":"first\n"}`)
	d := call(t, s, conv, "checkpoints", `{}`)
	call(t, s, conv, "read", `{"file_path":"d.txt"}`)
	call(t, s, conv, "write", `{"file_path":"d.txt","content":"second\n"}`)
	put(t, s, "d.txt", "first\n")
	m := stepNumber.FindAllStringSubmatch(d, -1)
	out = call(t, s, conv, "rewind", `{"to_step":`+m[len(m)-1][1]+`}`)
	assert.Equal(t, "nothing was changed: every file is as at step "+m[len(m)-1][1]+" or was left alone\nunchanged "+filepath.Join(s.W, "d.txt"), out)
}

func TestRefusedCallsCopyNothing(t *testing.T) {
	s := stack(t, nil)
	conv := s.Conversation("c1")
	put(t, s, "a.txt", "x\n")
	res := s.Call(t.Context(), conv, "edit", `{"file_path":"a.txt","old_string":"x","new_string":"y"}`)
	require.True(t, res.IsError, "unread")
	res = s.Call(t.Context(), conv, "write", `{"file_path":"a.txt","content":"y"}`)
	require.True(t, res.IsError, "unread overwrite")
	assert.Equal(t, "no steps yet: this conversation has changed no file through the tools", call(t, s, conv, "checkpoints", `{}`))
	call(t, s, conv, "read", `{"file_path":"a.txt"}`)
	res = s.Call(t.Context(), conv, "edit", `{"file_path":"a.txt","old_string":"zzz","new_string":"y"}`)
	require.True(t, res.IsError, "no match: the provider fails after the intent")
	assert.Equal(t, "no steps yet: this conversation has changed no file through the tools", call(t, s, conv, "checkpoints", `{}`))
}

func TestAStepOfAnotherConversationIsRefused(t *testing.T) {
	s := stack(t, nil)
	one, two := s.Conversation("one"), s.Conversation("two")
	call(t, s, one, "write", `{"file_path":"a.txt","content":"1\n"}`)
	call(t, s, two, "write", `{"file_path":"b.txt","content":"2\n"}`)
	res := s.Call(t.Context(), two, "rewind", `{"to_step":1}`)
	require.True(t, res.IsError)
	assert.Equal(t, "Error: step 1 belongs to another conversation", res.Text())
	res = s.Call(t.Context(), two, "rewind", `{"to_step":99}`)
	assert.Equal(t, "Error: step 99 does not exist", res.Text())
	assert.Equal(t, []string{"2"}, steps(t, s, two))
	three := s.Conversation("three") // no step of its own
	res = s.Call(t.Context(), three, "rewind", `{"to_step":99}`)
	assert.Equal(t, "Error: step 99 does not exist", res.Text())
	res = s.Call(t.Context(), three, "rewind", `{"to_step":2}`)
	assert.Equal(t, "Error: step 2 belongs to another conversation", res.Text())
	res = s.Call(t.Context(), three, "rewind", `{"to_step":0}`)
	assert.Equal(t, "Error: nothing to rewind: this conversation has no step after step 0", res.Text())
	call(t, s, two, "rewind", `{"to_step":0}`)
	assert.Equal(t, "1\n", file(t, s, "a.txt"), "only its own files")
	assert.Equal(t, "<absent>", file(t, s, "b.txt"))
}

func TestRewindOnlyThePathsAsked(t *testing.T) {
	s := stack(t, nil)
	conv := s.Conversation("c")
	call(t, s, conv, "write", `{"file_path":"a.txt","content":"a\n"}`)
	call(t, s, conv, "write", `{"file_path":"b.txt","content":"b\n"}`)
	out := call(t, s, conv, "rewind", `{"to_step":0,"paths":["b.txt","c.txt"]}`)
	assert.Contains(t, out, "deleted "+filepath.Join(s.W, "b.txt"))
	assert.Contains(t, out, "left alone "+filepath.Join(s.W, "c.txt")+": not changed after step 0")
	assert.Equal(t, "a\n", file(t, s, "a.txt"))

	// A directory stands for the files under it; a path that names no
	// file of the workspace is listed, and the rest is still rewound.
	call(t, s, conv, "write", `{"file_path":"sub/d.txt","content":"d\n"}`)
	out = call(t, s, conv, "rewind", `{"to_step":0,"paths":["sub","../outside.txt"]}`)
	assert.Contains(t, out, "deleted "+filepath.Join(s.W, "sub", "d.txt"))
	assert.Contains(t, out, "left alone ../outside.txt: ")
	assert.Equal(t, "a\n", file(t, s, "a.txt"))

	res := s.Call(t.Context(), conv, "rewind", `{"to_step":0,"paths":[]}`)
	assert.Equal(t, "Error: invalid arguments: paths must name at least one file; leave it out to rewind every file", res.Text())
	assert.Equal(t, "INVALID_ARGS", res.Code())
	res = s.Call(t.Context(), conv, "rewind", `{"to_step":9007199254740993}`)
	assert.Equal(t, "Error: to_step must be 0 or a step number", res.Text(), "not exact as a JSON number")
}

func TestALargeFileIsNotRestorable(t *testing.T) {
	s := stack(t, map[string]any{"maxFileBytes": 8})
	conv := s.Conversation("c")
	put(t, s, "big.txt", "0123456789\n")
	call(t, s, conv, "read", `{"file_path":"big.txt"}`)
	call(t, s, conv, "write", `{"file_path":"big.txt","content":"small\n"}`)
	assert.Contains(t, call(t, s, conv, "checkpoints", `{}`), "big.txt (not restorable: larger than 8 bytes)")
	out := call(t, s, conv, "rewind", `{"to_step":0}`)
	assert.Contains(t, out, "left alone "+filepath.Join(s.W, "big.txt")+": not restorable: larger than 8 bytes")
	assert.Equal(t, "small\n", file(t, s, "big.txt"))
}

func TestTheStoreOutlivesARestartAndEvictsTheOldest(t *testing.T) {
	t.Setenv("DSH_STATE_DIR", t.TempDir())
	s := stack(t, map[string]any{"maxStoreBytes": 64, "maxFileBytes": 32})
	conv := s.Conversation("c")
	for i := range 6 {
		name := fmt.Sprintf("f%d.txt", i)
		put(t, s, name, strings.Repeat(string(rune('A'+i)), 20))
		call(t, s, conv, "read", fmt.Sprintf(`{"file_path":%q}`, name))
		call(t, s, conv, "write", fmt.Sprintf(`{"file_path":%q,"content":"%s"}`, name, strings.Repeat(string(rune('a'+i)), 20)))
	}
	c := checkpoint.Key.Must(s.Host.Root())
	lines, err := c.Lines(t.Context())
	require.NoError(t, err)
	require.Len(t, lines, 6)
	// 12 × 20 bytes, 64 kept: the content of the oldest steps goes first.
	assert.Contains(t, lines[0], "(content evicted)", lines[0])
	assert.NotContains(t, lines[5], "evicted")

	again := stacktest.New(t, stacktest.Options{W: s.W, Checkpoint: map[string]any{}})
	c2 := checkpoint.Key.Must(again.Host.Root())
	lines2, err := c2.Lines(t.Context())
	require.NoError(t, err)
	assert.Len(t, lines2, 6, "a restart keeps the store")
	assert.Equal(t, c.Dir(), c2.Dir())
	info, err := os.Stat(c.Dir())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())
	w := again.Call(context.Background(), again.Conversation("c"), "checkpoints", `{}`)
	assert.Equal(t, "no steps yet: this conversation has changed no file through the tools", w.Text(), "a new process is a new incarnation")
}

func TestAStoreInsideTheWorkspaceIsRefused(t *testing.T) {
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	t.Setenv("DSH_STATE_DIR", filepath.Join(w, "state"))
	cfg := checkpoint.DefaultConfig()
	cfg.UseWorkspace(w)
	s := stacktest.New(t, stacktest.Options{W: w})
	inst, err := s.Host.Plugin(t.Context(), checkpoint.Plugin, cfg)
	require.NoError(t, err)
	require.Error(t, inst.Err())
	assert.Contains(t, inst.Err().Error(), "is inside the workspace")
	assert.NoDirExists(t, filepath.Join(w, "state"))
}

// TestADefaultStoreInsideTheWorkspaceLeavesThePluginInert: a workspace
// that holds the default location (the home directory) still serves; the
// plugin records nothing and registers no tool.
func TestADefaultStoreInsideTheWorkspaceLeavesThePluginInert(t *testing.T) {
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	t.Setenv("DSH_STATE_DIR", "")
	t.Setenv("XDG_STATE_HOME", filepath.Join(w, ".local", "state"))
	cfg := checkpoint.DefaultConfig()
	cfg.UseWorkspace(w)
	s := stacktest.New(t, stacktest.Options{W: w})
	inst, err := s.Host.Plugin(t.Context(), checkpoint.Plugin, cfg)
	require.NoError(t, err)
	require.NoError(t, inst.Err())
	svc := checkpoint.Key.Must(s.Host.Root())
	assert.Contains(t, svc.Inert(), "nothing is recorded: set DSH_STATE_DIR to a directory outside it")
	_, err = svc.Lines(t.Context())
	assert.EqualError(t, err, svc.Inert())
	res := s.Call(t.Context(), s.Conversation("c"), "checkpoints", `{}`)
	assert.Equal(t, `Error: unknown tool "checkpoints"`, res.Text())
	call(t, s, s.Conversation("c"), "write", `{"file_path":"a.txt","content":"x"}`)
	assert.NoDirExists(t, filepath.Join(w, ".local"))
}

// TestEveryStoreUnderTheStateDirectoryIsProtected: a root wider than the
// workspace does not reach another workspace's store either.
func TestEveryStoreUnderTheStateDirectoryIsProtected(t *testing.T) {
	state := t.TempDir()
	t.Setenv("DSH_STATE_DIR", state)
	other := filepath.Join(state, "checkpoints", "0000", "steps.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o700))
	s := stacktest.New(t, stacktest.Options{Checkpoint: map[string]any{}, FSLocal: map[string]any{"root": "/"}})
	res := s.Call(t.Context(), s.Conversation("c"), "write", fmt.Sprintf(`{"file_path":%q,"content":"x"}`, other))
	require.True(t, res.IsError, res.Text())
	assert.Contains(t, res.Text(), "it is a file this server keeps for itself")
	assert.NoFileExists(t, other)
}

func TestTheStoreIsProtected(t *testing.T) {
	s := stack(t, nil)
	c := checkpoint.Key.Must(s.Host.Root())
	conv := s.Conversation("c")
	res := s.Call(t.Context(), conv, "write", fmt.Sprintf(`{"file_path":%q,"content":"x"}`, filepath.Join(c.Dir(), "steps.jsonl")))
	require.True(t, res.IsError)
}

// TestEveryTextIsInTheDocs: docs/checkpoints.md gives every description,
// schema and prompt section byte for byte.
func TestEveryTextIsInTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/checkpoints.md")
	require.NoError(t, err)
	for _, text := range checkpoint.Texts {
		assert.Contains(t, string(doc), text)
	}
}

// TestPermissionBitsComeBack: a file deleted, moved away or replaced by a
// move comes back with the permission bits it had at the step.
func TestPermissionBitsComeBack(t *testing.T) {
	s := stack(t, nil)
	conv := s.Conversation("c")
	perm := func(name string) os.FileMode {
		fi, err := os.Stat(filepath.Join(s.W, name))
		require.NoError(t, err)
		return fi.Mode().Perm()
	}
	for name, m := range map[string]os.FileMode{"key.txt": 0o600, "x.sh": 0o755, "dest.txt": 0o600, "src.txt": 0o644} {
		put(t, s, name, name+"\n")
		require.NoError(t, os.Chmod(filepath.Join(s.W, name), m))
		call(t, s, conv, "read", `{"file_path":"`+name+`"}`)
	}
	call(t, s, conv, "delete", `{"path":"key.txt"}`)
	call(t, s, conv, "move", `{"source":"x.sh","destination":"y.sh"}`)
	call(t, s, conv, "move", `{"source":"src.txt","destination":"dest.txt","overwrite":true}`)
	call(t, s, conv, "rewind", `{"to_step":0}`)
	assert.Equal(t, os.FileMode(0o600), perm("key.txt"))
	assert.Equal(t, os.FileMode(0o755), perm("x.sh"))
	assert.Equal(t, os.FileMode(0o600), perm("dest.txt"))
	assert.Equal(t, "dest.txt\n", file(t, s, "dest.txt"))
	assert.Equal(t, os.FileMode(0o644), perm("src.txt"))
}
