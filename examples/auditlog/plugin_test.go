package auditlog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/examples/auditlog"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
	"github.com/dsh-go/dsh/plugins/fspolicy"
	"github.com/dsh-go/dsh/plugins/toolfiles"
	"github.com/dsh-go/dsh/plugins/toolfs"
	"github.com/dsh-go/dsh/plugins/tools"
)

// stack mounts the default filesystem stack confined to w, plus auditlog
// with cfg, and returns the registry and the auditlog instance.
func stack(t *testing.T, h *host.Host, w string, cfg auditlog.Config) (*tools.Registry, *host.Instance) {
	t.Helper()
	for _, m := range []struct {
		p   *host.Plugin
		cfg any
	}{{tools.Plugin, nil}, {fslocal.Plugin, fslocal.Config{Cwd: w, Root: w}}, {fspolicy.Plugin, nil}, {toolfs.Plugin, nil}, {toolfiles.Plugin, nil}} {
		_, err := h.Plugin(t.Context(), m.p, m.cfg)
		require.NoError(t, err)
	}
	audit, err := h.Plugin(t.Context(), auditlog.Plugin, cfg)
	require.NoError(t, err)
	require.NoError(t, h.Audit())
	return tools.Key.Must(h.Root()), audit
}

func call(t *testing.T, reg *tools.Registry, conv, tool string, args map[string]any) tools.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	return reg.Execute(context.Background(), tool, raw, &tools.Exec{Conv: &tools.Conversation{ID: conv, Principal: "cli"}})
}

func TestEveryObservationBecomesOneJSONLine(t *testing.T) {
	w, logDir := tempDir(t), tempDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("draft\n"), 0o644))
	path := filepath.Join(logDir, "audit.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"time":"2000-01-01T00:00:00Z","conversation":"old","tool":"read","path":"/old","kind":"present","version":"1"}`+"\n"), 0o644))
	h, _ := newHost(t)
	reg, audit := stack(t, h, w, auditlog.Config{Path: path, Queue: 16})
	fs := fsapi.Key.Must(h.Root())
	target, err := fs.Resolve(t.Context(), filepath.Join(w, "a.txt"), fsapi.ResolveOptions{})
	require.NoError(t, err)

	before := time.Now().UTC()
	require.False(t, call(t, reg, "s1", "read", map[string]any{"file_path": "a.txt"}).IsError)
	readInfo, err := fs.Stat(t.Context(), target)
	require.NoError(t, err)
	require.False(t, call(t, reg, "s1", "edit", map[string]any{"file_path": "a.txt", "old_string": "draft", "new_string": "final"}).IsError)
	editInfo, err := fs.Stat(t.Context(), target)
	require.NoError(t, err)
	require.True(t, call(t, reg, "s2", "read", map[string]any{"file_path": "gone.txt"}).IsError)
	require.False(t, call(t, reg, "s2", "list", map[string]any{}).IsError, "list observes nothing")
	require.NoError(t, audit.Dispose(t.Context()))
	after := time.Now().UTC()

	records := readRecords(t, path)
	require.Len(t, records, 4, "the old line is kept and three are appended")
	assert.Equal(t, "old", records[0].Conversation)
	got := records[1:]
	for i := range got {
		assert.False(t, got[i].Time.Before(before) || got[i].Time.After(after), "time %v within the calls", got[i].Time)
		got[i].Time = time.Time{}
	}
	assert.Equal(t, []auditlog.Record{
		{Conversation: "s1", Principal: "cli", Tool: "read", Path: w + "/a.txt", Kind: "present", Version: string(readInfo.Version)},
		{Conversation: "s1", Principal: "cli", Tool: "edit", Path: w + "/a.txt", Kind: "present", Version: string(editInfo.Version)},
		{Conversation: "s2", Principal: "cli", Tool: "read", Path: w + "/gone.txt", Kind: "absent", Version: ""},
	}, got)
}

// TestMovesAndDeletesAreRecorded: a move is two records, the source absent
// and the destination present at its version, and a delete one, absent.
func TestMovesAndDeletesAreRecorded(t *testing.T) {
	w, logDir := tempDir(t), tempDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("draft\n"), 0o644))
	path := filepath.Join(logDir, "audit.jsonl")
	h, _ := newHost(t)
	reg, audit := stack(t, h, w, auditlog.Config{Path: path, Queue: 16})
	require.False(t, call(t, reg, "s1", "read", map[string]any{"file_path": "a.txt"}).IsError)
	res := call(t, reg, "s1", "move", map[string]any{"source": "a.txt", "destination": "b.txt"})
	require.False(t, res.IsError, res.Text())
	fs := fsapi.Key.Must(h.Root())
	moved, err := fs.Resolve(t.Context(), "b.txt", fsapi.ResolveOptions{})
	require.NoError(t, err)
	info, err := fs.Stat(t.Context(), moved)
	require.NoError(t, err)
	res = call(t, reg, "s1", "delete", map[string]any{"path": "b.txt"})
	require.False(t, res.IsError, res.Text())
	require.NoError(t, audit.Dispose(t.Context()))

	records := readRecords(t, path)
	for i := range records {
		records[i].Time = time.Time{}
	}
	require.Len(t, records, 4)
	assert.Equal(t, []auditlog.Record{
		{Conversation: "s1", Principal: "cli", Tool: "move", Path: w + "/a.txt", Kind: "absent"},
		{Conversation: "s1", Principal: "cli", Tool: "move", Path: w + "/b.txt", Kind: "present", Version: string(info.Version)},
		{Conversation: "s1", Principal: "cli", Tool: "delete", Path: w + "/b.txt", Kind: "absent"},
	}, records[1:])
}

func TestDisposalFlushesEverythingQueued(t *testing.T) {
	path := filepath.Join(tempDir(t), "audit.jsonl")
	h, logs := newHost(t)
	audit, err := h.Plugin(t.Context(), auditlog.Plugin, auditlog.Config{Path: path, Queue: 1000})
	require.NoError(t, err)
	const n = 500
	for i := range n {
		require.NoError(t, events.FSObserved.Emit(t.Context(), h.Root(), events.Observation{
			Target: fsapi.Target{Key: "k", DisplayPath: fmt.Sprintf("/w/%d", i)}, Kind: events.Present, Version: "v"}))
	}
	require.NoError(t, audit.Dispose(t.Context()))
	records := readRecords(t, path)
	require.Equal(t, n, len(records), "every emitted record is in the file")
	for i, r := range records {
		assert.Equal(t, fmt.Sprintf("/w/%d", i), r.Path, "records keep their order")
		assert.Empty(t, r.Conversation, "an event without an actor has no conversation")
	}
	assert.Zero(t, logs.count("dropped"), logs.String())
}

func TestAnUnwritableFileNeverFailsAToolCall(t *testing.T) {
	dir := tempDir(t)
	file := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	tests := []struct{ name, path string }{
		{"the path is a directory", dir},
		{"a parent is a regular file", filepath.Join(file, "audit.jsonl")},
		{"a parent does not exist", filepath.Join(dir, "missing", "audit.jsonl")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := tempDir(t)
			require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("draft\n"), 0o644))
			h, logs := newHost(t)
			reg, audit := stack(t, h, w, auditlog.Config{Path: tc.path, Queue: 16})
			for range 3 {
				res := call(t, reg, "s1", "read", map[string]any{"file_path": "a.txt"})
				assert.False(t, res.IsError, res.Text())
			}
			res := call(t, reg, "s1", "edit", map[string]any{"file_path": "a.txt", "old_string": "draft", "new_string": "final"})
			assert.Equal(t, "The file "+w+"/a.txt has been updated successfully.", res.Text())
			require.NoError(t, audit.Dispose(t.Context()))
			assert.Equal(t, 1, logs.count(`msg="audit log cannot be written; records are lost until it can"`), "reported once: %s", logs.String())
			assert.Equal(t, 1, logs.count(`msg="audit records lost because the file could not be written" plugin=auditlog instance=auditlog path=`+tc.path+` count=4`), logs.String())
		})
	}
}

func TestAStuckFileNeverBlocksAToolCall(t *testing.T) {
	// A FIFO without a reader blocks the writer in open(2) until a reader
	// comes: the listener keeps returning at once and the queue overflows.
	fifo := filepath.Join(tempDir(t), "audit.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	h, logs := newHost(t)
	audit, err := h.Plugin(t.Context(), auditlog.Plugin, auditlog.Config{Path: fifo, Queue: 2})
	require.NoError(t, err)
	for i := range 50 {
		err := events.FSObserved.Emit(t.Context(), h.Root(), events.Observation{
			Target: fsapi.Target{Key: "k", DisplayPath: fmt.Sprintf("/w/%d", i)}, Kind: events.Present, Version: "v"})
		require.NoError(t, err)
	}
	lines := make(chan []auditlog.Record, 1)
	go func() {
		f, err := os.Open(fifo) // lets the writer's open return
		if !assert.NoError(t, err) {
			lines <- nil
			return
		}
		defer f.Close()
		lines <- parseRecords(t, f)
	}()
	require.NoError(t, audit.Dispose(t.Context()))
	records := <-lines
	require.Len(t, records, 2, "the two queued records are written once the file opens")
	assert.Equal(t, "/w/0", records[0].Path)
	assert.Equal(t, "/w/1", records[1].Path)
	assert.Equal(t, 1, logs.count(`msg="audit records dropped because the queue was full" plugin=auditlog instance=auditlog path=`+fifo+` count=48`), logs.String())
}

func TestMountThenUnmountLeavesNothingBehind(t *testing.T) {
	h := hosttest.New(t)
	baseline := hosttest.TakeBaseline(h)
	audit, err := h.Plugin(t.Context(), auditlog.Plugin, auditlog.Config{Path: filepath.Join(tempDir(t), "a.jsonl"), Queue: 1})
	require.NoError(t, err)
	require.NoError(t, audit.Wait(t.Context()))
	assert.Equal(t, baseline.Counts().Listeners+1, h.Counts().Listeners)
	require.NoError(t, audit.Dispose(t.Context()))
	baseline.Assert(t)
}

func TestConfigErrors(t *testing.T) {
	t.Run("an invalid typed config leaves the instance FAILED", func(t *testing.T) {
		h := hosttest.New(t)
		inst, err := h.Plugin(t.Context(), auditlog.Plugin, auditlog.Config{Path: "a.jsonl"})
		require.NoError(t, err)
		assert.Equal(t, host.StateFailed, inst.State())
		assert.EqualError(t, inst.Err(), `plugin "auditlog": invalid config: queue: auditlog: queue must be at least 1`)
	})
	tests := []struct {
		name string
		raw  map[string]any
		want string
	}{
		{"the path is required", map[string]any{}, `plugin "auditlog": invalid config: path: auditlog: path is required`},
		{"the queue holds at least one record", map[string]any{"path": "a.jsonl", "queue": 0}, `plugin "auditlog": invalid config: queue: auditlog: queue must be at least 1`},
		{"unknown keys are refused", map[string]any{"path": "a.jsonl", "file": "b"}, `plugin "auditlog": invalid config: file: unknown key`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Decode(auditlog.Plugin, tc.raw)
			assert.EqualError(t, err, tc.want, "the deployment decoder refuses it before any mount")
		})
	}
}
