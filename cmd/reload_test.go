package cmd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/frontend"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
	_ "github.com/dsh-go/dsh/plugins/standard"
	"github.com/dsh-go/dsh/plugins/toolfs"
)

// deploymentYAML is a deployment file: fslocal, fspolicy (disabled when
// policyOff) and toolfs with readLimit.
func deploymentYAML(readLimit int, policyOff bool) string {
	return fmt.Sprintf("plugins:\n  - name: fslocal\n  - name: fspolicy\n    disabled: %t\n  - name: toolfs\n    config: {readLimit: %d}\n", policyOff, readLimit)
}

// live is `dshhost serve --watch` in process: a booted deployment from a
// real file in a temp dir, its MCP server with one connected client
// session, and the watcher; it records every reload's report, every
// config/reload-failed, each instance's loads and the client's
// tools/list_changed notifications.
type live struct {
	t        *testing.T
	w, file  string
	rt       *runtime
	cs       *mcp.ClientSession
	reports  chan reloadReport
	failures chan events.ReloadFailure
	changed  atomic.Int32

	mu       sync.Mutex
	loads    map[string]int // LOADING transitions per instance id since boot
	logs     logBuffer
	messages chan string // the client's notifications/message: "level data"
	srv      *mcpserver.Server
}

// logBuffer collects log lines from several goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startLive(t *testing.T, text string, environ ...string) *live {
	t.Helper()
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return startLiveIn(t, w, filepath.Join(t.TempDir(), "dsh.yaml"), text, environ...)
}

// startLiveIn is startLive with the workspace w and the deployment file
// (which may lie inside w) given.
func startLiveIn(t *testing.T, w, file, text string, environ ...string) *live {
	t.Helper()
	dir := filepath.Dir(file)
	l := &live{t: t, w: w, file: file, reports: make(chan reloadReport, 128),
		failures: make(chan events.ReloadFailure, 128), loads: map[string]int{}, messages: make(chan string, 128)}
	require.NoError(t, os.WriteFile(l.file, []byte(text), 0o644))
	c := &common{config: l.file, workspace: w}
	env := Env{Environ: append([]string{}, environ...), Dir: dir}
	log := slog.New(slog.NewTextHandler(&l.logs, nil))
	dep, err := c.deployment(env)
	require.NoError(t, err)
	l.rt, err = boot(t.Context(), dep, log)
	require.NoError(t, err)
	t.Cleanup(l.rt.close)
	l.rt.host.OnStatus(func(inst *host.Instance, _, to host.State) {
		if to == host.StateLoading {
			l.mu.Lock()
			l.loads[inst.ID()]++
			l.mu.Unlock()
		}
	})
	_, err = events.ConfigReloadFailed.On(l.rt.host.Root(), func(_ context.Context, f events.ReloadFailure) error {
		l.failures <- f
		return nil
	})
	require.NoError(t, err)

	ws := &workspace{dir: dep.Workspace, settled: true}
	srv, err := mcpserver.New(l.rt.host.Root(), l.rt.reg, mcpserver.Options{Name: "dshhost", Version: "test", Logger: log, Cwd: ws.Dir})
	require.NoError(t, err)
	l.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Run(ctx, st) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { l.changed.Add(1) },
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			l.messages <- fmt.Sprint(r.Params.Level, " ", r.Params.Data)
		}})
	l.cs, err = client.Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.cs.Close(); cancel(); <-served })
	stop, err := watchDeployment(ctx, env, c, ws, l.rt, srv.Hold, frontend.Mount{}, log, func(rep reloadReport) { l.reports <- rep })
	require.NoError(t, err)
	t.Cleanup(stop)
	return l
}

// write replaces the file in place (truncate and write, as `echo >` does).
func (l *live) write(text string) {
	l.t.Helper()
	require.NoError(l.t, os.WriteFile(l.file, []byte(text), 0o644))
}

// replace writes a temp file beside the file and renames it over, as most
// editors save.
func (l *live) replace(text string) {
	l.t.Helper()
	tmp := l.file + ".tmp"
	require.NoError(l.t, os.WriteFile(tmp, []byte(text), 0o644))
	require.NoError(l.t, os.Rename(tmp, l.file))
}

// next waits (bounded) for the next reload's report.
func (l *live) next() reloadReport {
	l.t.Helper()
	select {
	case rep := <-l.reports:
		return rep
	case <-time.After(10 * time.Second):
		l.t.Fatal("no reload within 10s")
		return reloadReport{}
	}
}

// quiet asserts no further reload comes within a few quiet periods.
func (l *live) quiet() {
	l.t.Helper()
	select {
	case rep := <-l.reports:
		l.t.Fatalf("unexpected reload: %s", rep)
	case <-time.After(3 * reloadQuiet):
	}
}

func (l *live) loadsOf(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.loads[id]
}

func (l *live) call(tool string, args map[string]any) (string, bool) {
	l.t.Helper()
	res, err := l.cs.CallTool(l.t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(l.t, err)
	require.Len(l.t, res.Content, 1)
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func (l *live) readLimit() int {
	return l.rt.host.Instance("toolfs").Config().(toolfs.Config).ReadLimit
}

func TestReloadSeesInPlaceWritesAndRenameReplace(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false))
	start := time.Now()
	l.write(deploymentYAML(200, false))
	rep := l.next()
	t.Logf("write → reloaded in %v (the quiet period is %v)", time.Since(start), reloadQuiet)
	require.NoError(t, rep.Err)
	assert.Equal(t, 200, l.readLimit(), "a write in place is seen")

	l.replace(deploymentYAML(300, false))
	rep = l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, 300, l.readLimit(), "a rename over the file is seen")
	l.quiet()
}

// A change to toolfs's config alone is taken in place: fspolicy keeps
// running, so the session's earlier read still lets it edit; the client gets
// one tools/list_changed (read's schema names the new limit).
func TestAToolfsChangeKeepsTheSessionsReads(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false))
	require.NoError(t, os.WriteFile(filepath.Join(l.w, "a.txt"), []byte("mode=DEBUG\n"), 0o644))
	_, isErr := l.call("read", map[string]any{"file_path": "a.txt"})
	require.False(t, isErr)
	before := l.changed.Load()

	l.replace(deploymentYAML(7, false))
	rep := l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, []string{"toolfs"}, rep.Updated)
	assert.Equal(t, []string{"fslocal", "fspolicy"}, rep.Kept)
	assert.Empty(t, rep.Restarted)
	assert.Zero(t, l.loadsOf("fspolicy"), "fspolicy never restarted")
	assert.Zero(t, l.loadsOf("toolfs"), "toolfs took its limits in place")

	text, isErr := l.call("edit", map[string]any{"file_path": "a.txt", "old_string": "DEBUG", "new_string": "RELEASE"})
	assert.False(t, isErr, text)
	assert.Equal(t, "The file "+l.w+"/a.txt has been updated successfully.", text)
	_, isErr = l.call("read", map[string]any{"file_path": "a.txt", "limit": 8})
	assert.True(t, isErr, "the new limit applies: 8 > readLimit 7")

	tl, err := l.cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	for _, tool := range tl.Tools {
		if tool.Name == "read" {
			assert.Contains(t, fmt.Sprint(tool.InputSchema), "Defaults to 7.")
		}
	}
	assert.Eventually(t, func() bool { return l.changed.Load() == before+1 }, 5*time.Second, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	assert.Equal(t, before+1, l.changed.Load(), "one coalesced tools/list_changed")
}

// `disabled: true` on fspolicy takes effect on the connected session, and
// `false` brings the policy back, empty: an unread file is refused again.
func TestDisablingThePolicyLive(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false))
	for _, name := range []string{"b.txt", "c.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(l.w, name), []byte("x=1\n"), 0o644))
	}
	edit := func(name string) (string, bool) {
		return l.call("edit", map[string]any{"file_path": name, "old_string": "x=1", "new_string": "x=2"})
	}
	text, isErr := edit("b.txt")
	require.True(t, isErr)
	assert.Contains(t, text, "edit requires reading")

	l.write(deploymentYAML(100, true))
	rep := l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, []string{"fspolicy"}, rep.Stopped)
	assert.Equal(t, []string{"fslocal", "toolfs"}, rep.Kept)
	text, isErr = edit("b.txt")
	assert.False(t, isErr, "an unread file may be edited without the policy: %s", text)

	l.write(deploymentYAML(100, false))
	rep = l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, []string{"fspolicy"}, rep.Started)
	text, isErr = edit("c.txt")
	assert.True(t, isErr, "the policy is back: an unread file is refused again")
	assert.Contains(t, text, "edit requires reading")
	assert.Zero(t, l.loadsOf("fslocal"), "the provider never restarted")
}

// A broken file (bad YAML, then an invalid value) keeps the last good
// deployment serving and emits config/reload-failed with the file and the
// key path.
func TestABrokenFileKeepsTheLastGoodDeployment(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false))
	require.NoError(t, os.WriteFile(filepath.Join(l.w, "a.txt"), []byte("hello\n"), 0o644))
	for _, tc := range []struct{ name, text, want string }{
		{"unparseable", "plugins: [\n", "yaml"},
		{"an invalid value", deploymentYAML(0, false), l.file + ": plugins[2].config.readLimit: toolfs: readLimit must be a positive integer"},
		{"an unknown key", "plugins:\n  - name: fslocal\n    config: {jail: /}\n", "plugins[0].config.jail: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l.write(tc.text)
			rep := l.next()
			require.Error(t, rep.Err)
			assert.Contains(t, rep.Err.Error(), tc.want)
			select {
			case f := <-l.failures:
				assert.Equal(t, l.file, f.Source)
				assert.Contains(t, f.Err.Error(), tc.want)
			case <-time.After(5 * time.Second):
				t.Fatal("no config/reload-failed")
			}
			assert.Equal(t, 100, l.readLimit(), "the last good deployment serves")
			assert.Contains(t, l.logs.String(), `level=ERROR msg="config reload refused; still serving the last good deployment" file=`+l.file)
			text, isErr := l.call("read", map[string]any{"file_path": "a.txt"})
			assert.False(t, isErr)
			assert.Contains(t, text, "1: hello")
		})
	}
	l.write(deploymentYAML(100, false))
	rep := l.next()
	require.NoError(t, rep.Err, "a good file after broken ones applies")
	assert.Equal(t, "nothing changed", rep.String(), "the deployment running was still the last good one")
}

// TestAReloadsResultReachesTheSessionsThatSetALevel: the client that asked
// for log messages is told each reload's result (conversations.md §4.3).
func TestAReloadsResultReachesTheSessionsThatSetALevel(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false))
	_, err := frontend.Key.Provide(l.rt.host.Root(), l.srv) // as the mcp entry of serve does
	require.NoError(t, err)
	require.NoError(t, l.cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}))
	message := func() string {
		select {
		case m := <-l.messages:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no log message within 10s")
			return ""
		}
	}
	l.write(deploymentYAML(200, false))
	require.NoError(t, l.next().Err)
	assert.Equal(t, "info config reloaded: updated [toolfs]", message())
	l.write(deploymentYAML(0, false))
	require.Error(t, l.next().Err)
	assert.Equal(t, "error config reload refused; still serving the last good deployment: invalid deployment config:\n  "+l.file+": plugins[2].config.readLimit: toolfs: readLimit must be a positive integer", message())
}

// 100 rapid rewrites coalesce into few reloads and end in one consistent
// deployment: the last file's.
func TestRapidRewritesEndInOneConsistentDeployment(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false))
	for i := 1; i <= 100; i++ {
		if i%2 == 0 {
			l.write(deploymentYAML(1000+i, i%3 == 0))
		} else {
			l.replace(deploymentYAML(1000+i, i%3 == 0))
		}
	}
	reloads := 0
	var rep reloadReport
	for {
		rep = l.next()
		reloads++
		if l.readLimit() == 1100 {
			break
		}
	}
	l.quiet()
	require.NoError(t, rep.Err)
	t.Logf("100 rewrites, %d reload(s)", reloads)
	assert.Less(t, reloads, 100, "bursts coalesce")
	e, _ := l.rt.dep.Entry("fspolicy")
	assert.False(t, e.Disabled, "rewrite 100 enables the policy")
	assert.Equal(t, host.StateActive, l.rt.host.Instance("fspolicy").State())
	assert.NoError(t, l.rt.host.Audit())
	text, isErr := l.call("read", map[string]any{"file_path": "nope.txt", "limit": 1100})
	assert.True(t, isErr)
	assert.Contains(t, text, "not found", "limit 1100 is accepted: the last file's config is in force")
}

// Environment variables and flags still layer over the file on every
// reload, exactly as at start.
func TestEnvAndFlagsLayerOverEveryReload(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false), "DSH_TOOLFS_READLIMIT=42")
	assert.Equal(t, 42, l.readLimit(), "at start")
	l.write(deploymentYAML(300, false))
	rep := l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, "nothing changed", rep.String(), "the variable still wins over the file's new value")
	assert.Equal(t, 42, l.readLimit())
	l.write(deploymentYAML(300, true))
	rep = l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, "stopped [fspolicy]", rep.String())
	assert.Equal(t, 42, l.readLimit())
}

func TestAReloadWithNothingChangedRestartsNothing(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false))
	before := l.changed.Load()
	l.replace(deploymentYAML(100, false) + "# a comment\n")
	rep := l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, "nothing changed", rep.String())
	assert.Equal(t, []string{"fslocal", "fspolicy", "toolfs"}, rep.Kept)
	for _, id := range []string{"tools", "fslocal", "fspolicy", "toolfs"} {
		assert.Zero(t, l.loadsOf(id), id)
	}
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, before, l.changed.Load(), "no tools/list_changed")
}

// What restarts for each kind of change, through the reconcile alone.
func TestWhatEachKindOfChangeRestarts(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false))
	other := t.TempDir()
	steps := []struct {
		name, text string
		want       string
		loads      map[string]int // loads per instance id since boot, after the step
	}{
		{"toolfs limits: in place", deploymentYAML(50, false), "updated [toolfs]",
			map[string]int{"fslocal": 0, "fspolicy": 0, "toolfs": 0}},
		{"fslocal config: fslocal swapped, toolfs (which injects fs) revived", "plugins:\n  - name: fslocal\n    config: {hardLinks: break}\n  - name: fspolicy\n  - name: toolfs\n    config: {readLimit: 50}\n",
			"restarted [fslocal]", map[string]int{"fslocal": 1, "fspolicy": 0, "toolfs": 1}},
		{"an entry removed: stopped", "plugins:\n  - name: fslocal\n    config: {hardLinks: break}\n  - name: toolfs\n    config: {readLimit: 50}\n",
			"stopped [fspolicy]", map[string]int{"fslocal": 1, "fspolicy": 0, "toolfs": 1}},
		{"an entry added: started", "plugins:\n  - name: fslocal\n    config: {hardLinks: break}\n  - name: toolfs\n    config: {readLimit: 50}\n  - name: fspolicy\n    id: policy2\n",
			"started [policy2]", map[string]int{"fslocal": 1, "policy2": 1, "toolfs": 1}},
		{"a failing new config: restored, reported", "plugins:\n  - name: fslocal\n    config: {hardLinks: break, root: " + filepath.Join(other, "missing") + "}\n  - name: toolfs\n    config: {readLimit: 50}\n  - name: fspolicy\n    id: policy2\n",
			// fslocal: the failed start, then the restore; toolfs waits
			// for fs meanwhile and revives once.
			"nothing changed", map[string]int{"fslocal": 3, "policy2": 1, "toolfs": 2}},
	}
	for _, st := range steps {
		l.replace(st.text)
		rep := l.next()
		assert.Equal(t, st.want, rep.String(), st.name)
		for id, n := range st.loads {
			assert.Equal(t, n, l.loadsOf(id), "%s: loads of %s", st.name, id)
		}
		if strings.HasPrefix(st.name, "a failing") {
			require.Error(t, rep.Err)
			assert.Contains(t, rep.Err.Error(), `plugin entry "fslocal"`)
			assert.Contains(t, rep.Err.Error(), "fslocal: root must be an existing directory")
			assert.Equal(t, host.StateActive, l.rt.host.Instance("fslocal").State(), "the old config is back")
			assert.NoError(t, l.rt.host.Audit())
			f := <-l.failures
			assert.Equal(t, l.file, f.Source)
		} else {
			require.NoError(t, rep.Err, st.name)
		}
	}
}

// BenchmarkReload measures one reload transaction (load the file through
// every layer, validate, reconcile) for each kind of change, alternating
// between two files; the watcher's 200 ms quiet period comes on top.
//
//	go test ./cmd -run '^$' -bench Reload -benchtime 200x
func BenchmarkReload(b *testing.B) {
	kinds := []struct {
		name string
		a, b string
	}{
		{"nothing changed", deploymentYAML(100, false), deploymentYAML(100, false)},
		{"toolfs in place", deploymentYAML(100, false), deploymentYAML(200, false)},
		{"fspolicy toggled", deploymentYAML(100, false), deploymentYAML(100, true)},
		{"fslocal swapped", deploymentYAML(100, false), "plugins:\n  - name: fslocal\n    config: {hardLinks: break}\n  - name: fspolicy\n  - name: toolfs\n    config: {readLimit: 100}\n"},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			w, dir := b.TempDir(), b.TempDir()
			file := filepath.Join(dir, "dsh.yaml")
			require.NoError(b, os.WriteFile(file, []byte(k.a), 0o644))
			c := &common{config: file, workspace: w}
			env := Env{Environ: []string{}, Dir: dir}
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			dep, err := c.deployment(env)
			require.NoError(b, err)
			rt, err := boot(context.Background(), dep, log)
			require.NoError(b, err)
			defer rt.close()
			r := &reloader{rt: rt, log: log, load: func() (*config.Deployment, error) { return c.deployment(env) }}
			texts := []string{k.b, k.a}
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				require.NoError(b, os.WriteFile(file, []byte(texts[i%2]), 0o644))
				b.StartTimer()
				if rep := r.reload(context.Background(), file); rep.Err != nil {
					b.Fatal(rep.Err)
				}
			}
		})
	}
}

// The watched file replaced by a FIFO (a trial's `mkfifo`): the reload is
// refused at once as not a regular file, and calls go on; a good file
// afterwards reloads again.
func TestAFIFOInPlaceOfTheFileIsARefusedReload(t *testing.T) {
	l := startLive(t, deploymentYAML(100, false))
	require.NoError(t, os.WriteFile(filepath.Join(l.w, "a.txt"), []byte("hello\n"), 0o644))
	require.NoError(t, os.Remove(l.file))
	require.NoError(t, syscall.Mkfifo(l.file, 0o644))
	t.Cleanup(func() { // a blocked reader, if any, is let go so the test ends
		if f, err := os.OpenFile(l.file, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	var rep reloadReport
	for rep.Err == nil || !strings.Contains(rep.Err.Error(), "not a regular file") {
		rep = l.next() // the removal may be a refused reload of its own
	}
	assert.Contains(t, rep.Err.Error(), l.file+": not a regular file (a named pipe)")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	res, err := l.cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "a.txt"}})
	require.NoError(t, err, "a call after the refused reload")
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "1: hello")

	require.NoError(t, os.Remove(l.file))
	l.write(deploymentYAML(50, false))
	for rep = l.next(); rep.Err != nil; rep = l.next() {
	}
	assert.Equal(t, 50, l.readLimit())
}

// `watch` is read at start only: a reload that drops it is applied, says
// so in the log, and the watch goes on.
func TestWatchFalseInAReloadKeepsWatching(t *testing.T) {
	l := startLive(t, "watch: true\n"+deploymentYAML(100, false))
	l.write("watch: false\n" + deploymentYAML(60, false))
	rep := l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, 60, l.readLimit())
	assert.Contains(t, l.logs.String(), "it is read at start only, so the watch goes on until serve restarts")
	l.write("watch: false\n" + deploymentYAML(70, false))
	require.NoError(t, l.next().Err)
	assert.Equal(t, 70, l.readLimit())
}

// A reload that changes only mcp's call limits updates the running server
// in place (it is never restarted: that would cut the stdio session).
func TestAReloadAppliesMCPLimitsInPlace(t *testing.T) {
	withMCP := func(maxInFlight int) string {
		return deploymentYAML(100, false) + fmt.Sprintf("  - name: mcp\n    config: {maxInFlight: %d}\n", maxInFlight)
	}
	l := startLive(t, withMCP(64))
	in, feed := io.Pipe()
	t.Cleanup(func() { _ = feed.Close() })
	cfg := mcpserver.Plugin.DefaultConfig().(mcpserver.Config)
	cfg.Stdin, cfg.Stdout, cfg.Stderr = in, io.Discard, io.Discard
	inst, err := l.rt.host.Plugin(t.Context(), mcpserver.Plugin, cfg, host.ID("mcp"))
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))
	mounted := l.loadsOf("mcp")

	l.replace(withMCP(3))
	rep := l.next()
	require.NoError(t, rep.Err)
	assert.Equal(t, "updated [mcp]", rep.String())
	assert.Equal(t, mounted, l.loadsOf("mcp"), "mcp was not restarted")
	got := inst.Config().(mcpserver.Config)
	assert.Equal(t, 3, got.MaxInFlight)

	l.replace(withMCP(3) + "# no change\n")
	assert.Equal(t, "nothing changed", l.next().String())
}
