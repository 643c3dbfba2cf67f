package toolsearch_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
	"github.com/dsh-go/dsh/plugins/tools"
	"github.com/dsh-go/dsh/plugins/toolsearch"
)

func TestConfigValidation(t *testing.T) {
	ok := toolsearch.DefaultConfig()
	require.NoError(t, ok.Validate())
	assert.Equal(t, toolsearch.Config{GlobMaxResults: 100, GrepMaxMatches: 250, GrepMaxBytes: 51200, GrepMaxLineBytes: 2000, MaxKept: 10000, FileMaxBytes: 67108864, TimeoutMs: 30000}, ok)
	keys := []struct {
		key string
		set func(*toolsearch.Config)
	}{
		{"globMaxResults", func(c *toolsearch.Config) { c.GlobMaxResults = 0 }},
		{"grepMaxMatches", func(c *toolsearch.Config) { c.GrepMaxMatches = -1 }},
		{"grepMaxBytes", func(c *toolsearch.Config) { c.GrepMaxBytes = 0 }},
		{"grepMaxLineBytes", func(c *toolsearch.Config) { c.GrepMaxLineBytes = 0 }},
		{"maxKept", func(c *toolsearch.Config) { c.MaxKept = 0 }},
		{"fileMaxBytes", func(c *toolsearch.Config) { c.FileMaxBytes = 0 }},
		{"timeoutMs", func(c *toolsearch.Config) { c.TimeoutMs = 0 }},
	}
	for _, k := range keys {
		c := toolsearch.DefaultConfig()
		k.set(&c)
		err := c.Validate()
		require.Error(t, err, k.key)
		assert.Contains(t, err.Error(), "toolsearch: "+k.key+" must be a positive integer")
	}
	c := toolsearch.DefaultConfig()
	c.TimeoutMs = 2147483648
	assert.ErrorContains(t, c.Validate(), "toolsearch: timeoutMs must be no greater than 2147483647")
	c.TimeoutMs = 2147483647
	assert.NoError(t, c.Validate())
	c = toolsearch.DefaultConfig()
	c.GlobMaxResults, c.TimeoutMs = 0, 0
	assert.ErrorContains(t, c.Validate(), "globMaxResults", "the first failing key in the table's order")

	// Through the one decoder: fractions, wrong types and unknown keys fail
	// at load.
	for cfg, want := range map[string]string{
		`{"maxKept": 1.5}`:                   "toolsearch: maxKept must be a positive integer",
		`{"timeoutMs": "x"}`:                 "toolsearch: timeoutMs must be a positive integer",
		`{"timeoutMs": 2147483648}`:          "toolsearch: timeoutMs must be no greater than 2147483647",
		`{"sampleOverCapGlobResults": true}`: "sampleOverCapGlobResults",
	} {
		var raw map[string]any
		require.NoError(t, json.Unmarshal([]byte(cfg), &raw))
		_, err := config.Decode(toolsearch.Plugin, raw)
		assert.ErrorContains(t, err, want, cfg)
	}
}

func TestToolsearchFollowsItsServices(t *testing.T) {
	ctx := t.Context()
	h := host.New()
	defer h.Shutdown(context.Background())
	ts, err := h.Plugin(ctx, toolsearch.Plugin, nil)
	require.NoError(t, err)
	assert.Equal(t, host.StatePending, ts.State())
	assert.Equal(t, []string{"fs", "tools"}, ts.Missing())
	_, err = h.Plugin(ctx, tools.Plugin, nil)
	require.NoError(t, err)
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	fs1, err := h.Plugin(ctx, fslocal.Plugin, fslocal.Config{Cwd: w, Root: w})
	require.NoError(t, err)
	require.Equal(t, host.StateActive, ts.State())
	reg, _ := tools.Key.Get(h.Root())
	var names []string
	for _, tl := range reg.Tools() {
		names = append(names, tl.Name)
		assert.True(t, tl.ReadOnly, tl.Name)
		assert.Equal(t, tools.Parallel, reg.Classify(tl.Name, json.RawMessage(`{"pattern":"x"}`)), tl.Name)
	}
	assert.Equal(t, []string{"glob", "grep"}, names)
	secs := reg.Sections()
	require.Len(t, secs, 2)
	assert.Equal(t, "tool:glob", secs[0].Name)
	assert.Equal(t, 103, secs[0].Order)
	assert.Equal(t, "tool:grep", secs[1].Name)
	assert.Equal(t, 104, secs[1].Order)

	require.NoError(t, fs1.Dispose(ctx))
	assert.Equal(t, host.StatePending, ts.State())
	assert.Empty(t, reg.Tools())
	assert.Empty(t, reg.Sections())
	_, err = h.Plugin(ctx, fslocal.Plugin, fslocal.Config{Cwd: w, Root: w})
	require.NoError(t, err)
	assert.Equal(t, host.StateActive, ts.State())
	require.NoError(t, ts.Dispose(ctx))
	assert.Empty(t, reg.Tools(), "disposing toolsearch unregisters both tools")
	assert.Empty(t, reg.Sections())
}

func TestTheDefaultStackListsTenToolsAndTenSections(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	var names []string
	for _, tl := range s.Registry.Tools() {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"list", "read", "write", "edit", "move", "delete", "mkdir", "file_info", "glob", "grep"}, names)
	var orders []int
	for _, sec := range s.Registry.Sections() {
		orders = append(orders, sec.Order)
	}
	assert.Equal(t, []int{99, 100, 101, 102, 103, 104, 106, 107, 108, 109}, orders)
	assert.Contains(t, s.Registry.Prompt(), "Use the glob tool rather than running find in a shell")
}

// bare is an fs service with only the required methods: it hides every
// optional capability of the provider it wraps.
type bare struct{ fsapi.FileSystem }

// walkOnly adds the walker back, but no opener.
type walkOnly struct {
	fsapi.FileSystem
	fsapi.Walker
}

// mountWith mounts tools, the given fs service (as a tiny provider plugin)
// and toolsearch with cfg, and returns the registry and the workspace.
func mountWith(t *testing.T, wrap func(*fslocal.Provider) fsapi.FileSystem, cfg map[string]any) (*tools.Registry, string) {
	t.Helper()
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	p, err := fslocal.New(fslocal.Config{Cwd: w, Root: w})
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	provider := host.Define("testfs", func(_ context.Context, s *host.Scope, _ struct{}) error {
		_, err := fsapi.Key.Provide(s, wrap(p))
		return err
	}, host.Provides(fsapi.Key))
	h := host.New()
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	decoded, err := config.Decode(toolsearch.Plugin, cfg)
	require.NoError(t, err)
	for _, m := range []struct {
		p   *host.Plugin
		cfg any
	}{{tools.Plugin, nil}, {provider, nil}, {toolsearch.Plugin, decoded}} {
		_, err := h.Plugin(t.Context(), m.p, m.cfg)
		require.NoError(t, err)
	}
	require.NoError(t, h.Audit())
	reg, _ := tools.Key.Get(h.Root())
	return reg, w
}

func call(ctx context.Context, reg *tools.Registry, w, tool, args string) tools.Result {
	return reg.Execute(ctx, tool, json.RawMessage(args), &tools.Exec{Conv: &tools.Conversation{ID: "s", Cwd: w}})
}

func TestSearchFailsWithoutTheCapabilities(t *testing.T) {
	reg, w := mountWith(t, func(p *fslocal.Provider) fsapi.FileSystem { return bare{p} }, nil)
	res := call(t.Context(), reg, w, "glob", `{"pattern":"*"}`)
	assert.Equal(t, "Error: glob is unavailable: the fs service cannot walk directories and open files", res.Text())
	assert.Equal(t, "SEARCH_FAILED", res.Code())
	assert.Equal(t, "SearchError", res.Error.Info.Name)
	res = call(t.Context(), reg, w, "grep", `{"pattern":"x"}`)
	assert.Equal(t, "Error: grep is unavailable: the fs service cannot walk directories and open files", res.Text())
	res = call(t.Context(), reg, w, "glob", `{"pattern":"[x"}`)
	assert.Equal(t, "SEARCH_INVALID_PATTERN", res.Code(), "validation comes before the capability check")

	reg, w = mountWith(t, func(p *fslocal.Provider) fsapi.FileSystem { return walkOnly{p, p} }, nil)
	assert.False(t, call(t.Context(), reg, w, "glob", `{"pattern":"*"}`).IsError, "glob needs only the walker")
	res = call(t.Context(), reg, w, "grep", `{"pattern":"x"}`)
	assert.Equal(t, "SEARCH_FAILED", res.Code(), "grep needs the opener too")
}

// slow delays every walk visit, so that a call's time budget runs out
// while it walks; cancel, when set, is called at the tenth visit.
type slow struct {
	*fslocal.Provider
	delay  time.Duration
	cancel func()
}

func (s slow) Walk(ctx context.Context, root fsapi.Target, opts fsapi.WalkOptions, fn func(fsapi.WalkEntry) error) error {
	n := 0
	return s.Provider.Walk(ctx, root, opts, func(e fsapi.WalkEntry) error {
		n++
		if n == 10 && s.cancel != nil {
			s.cancel()
		}
		time.Sleep(s.delay)
		return fn(e)
	})
}

func writeFiles(t *testing.T, w string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(w, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

// The budget is a timer: on synctest's clock the slow walk's delays and the
// 100 ms limit pass without real time, and always in the same order.
func TestTheTimeBudget(t *testing.T) { synctest.Test(t, testTheTimeBudget) }

func testTheTimeBudget(t *testing.T) {
	reg, w := mountWith(t, func(p *fslocal.Provider) fsapi.FileSystem { return slow{Provider: p, delay: 20 * time.Millisecond} }, map[string]any{"timeoutMs": 100})
	files := map[string]string{}
	for i := range 40 {
		files[filepath.Join("d", strings.Repeat("x", i+1)+".txt")] = "hit\n"
	}
	writeFiles(t, w, files)

	start := time.Now()
	res := call(t.Context(), reg, w, "grep", `{"pattern":"hit"}`)
	require.False(t, res.IsError, res.Text())
	assert.Less(t, time.Since(start), 2*time.Second, "the walk stops soon after the budget")
	assert.Contains(t, res.Text(), "\n(Stopped at the 100 ms time limit after searching ")
	assert.Contains(t, res.Text(), " later lines and files were not searched. Narrow pattern, path, or include to see every match.)")
	v := res.Value
	out, _ := json.Marshal(v)
	var got struct {
		Stop          string `json:"stop"`
		FilesSearched int    `json:"filesSearched"`
		TotalMatches  int    `json:"totalMatches"`
	}
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, "time", got.Stop)
	assert.Equal(t, got.FilesSearched, got.TotalMatches, "every file searched had its one match, in path order")
	assert.Less(t, got.FilesSearched, 40)

	res = call(t.Context(), reg, w, "glob", `{"pattern":"*"}`)
	assert.Equal(t, "Error: glob was aborted before completion (tool timeout or caller cancellation)", res.Text())
	assert.Equal(t, "SEARCH_ABORTED", res.Code())
}

func TestCancellationAbortsPromptly(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[filepath.Join("d", strings.Repeat("y", i+1))] = "hit\n"
	}
	for tool, args := range map[string]string{"glob": `{"pattern":"*"}`, "grep": `{"pattern":"hit"}`} {
		t.Run(tool, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				reg, w := mountWith(t, func(p *fslocal.Provider) fsapi.FileSystem {
					return slow{Provider: p, delay: 10 * time.Millisecond, cancel: cancel}
				}, nil)
				writeFiles(t, w, files)
				start := time.Now()
				res := call(ctx, reg, w, tool, args)
				assert.LessOrEqual(t, time.Since(start), 100*time.Millisecond, "no entry after the one that cancelled is walked: ten delays of 10 ms")
				assert.Equal(t, "Error: "+tool+" was aborted before completion (tool timeout or caller cancellation)", res.Text())
				assert.Equal(t, "SEARCH_ABORTED", res.Code())
			})
		})
	}
}

// failing makes Open fail for files whose name starts with "secret", as an
// unreadable file would.
type failing struct{ *fslocal.Provider }

func (f failing) Open(ctx context.Context, t fsapi.Target) (io.ReadCloser, error) {
	if strings.HasPrefix(filepath.Base(t.DisplayPath), "secret") {
		return nil, fsapi.ErrPermission("read", t.DisplayPath, os.ErrPermission)
	}
	return f.Provider.Open(ctx, t)
}

func TestUnreadableFilesAreCountedInPathOrder(t *testing.T) {
	reg, w := mountWith(t, func(p *fslocal.Provider) fsapi.FileSystem { return failing{p} }, map[string]any{"maxKept": 2})
	writeFiles(t, w, map[string]string{"a.txt": "x\n", "b/secret1": "x\n", "c.txt": "x\nx\n", "d/secret2": "x\n"})
	res := call(t.Context(), reg, w, "grep", `{"pattern":"x"}`)
	assert.Equal(t, "Found 2 matches\n\na.txt\nLine 1: x\n\nc.txt\nLine 1: x\n\n(Stopped at the 2-match limit after searching 2 files; later lines and files were not searched. Narrow pattern, path, or include to see every match.)\n(Skipped 1 unreadable entry.)", res.Text(),
		"d/secret2 lies after the stop point and is not counted")
	res = call(t.Context(), reg, w, "grep", `{"pattern":"x","path":"b/secret1"}`)
	assert.Equal(t, "Error: cannot read \""+w+"/b/secret1\": permission denied", res.Text(), "a file root's Open error passes through")
	assert.Equal(t, "FS_PERMISSION_DENIED", res.Code())
}

func TestSearchesSkipFIFOsAndRefuseOneAsRoot(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	writeFiles(t, s.W, map[string]string{"a.txt": "x\n"})
	require.NoError(t, mkfifo(filepath.Join(s.W, "pipe")))
	done := make(chan tools.Result, 1)
	go func() { done <- s.Call(t.Context(), s.Conversation("s"), "grep", `{"pattern":"x"}`) }()
	select {
	case res := <-done:
		assert.Equal(t, "Found 1 match\n\na.txt\nLine 1: x", res.Text())
	case <-time.After(10 * time.Second):
		t.Fatal("grep blocked on a FIFO")
	}
	res := s.Call(t.Context(), s.Conversation("s"), "grep", `{"pattern":"x","path":"pipe"}`)
	assert.Equal(t, "Error: cannot search \""+s.W+"/pipe\": not a regular file", res.Text())
	assert.Equal(t, "FS_NOT_REGULAR_FILE", res.Code())
	res = s.Call(t.Context(), s.Conversation("s"), "glob", `{"pattern":"*"}`)
	assert.Equal(t, "a.txt", res.Text(), "a FIFO is never a glob result")
}

func TestGrepDoesNotObserve(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	writeFiles(t, s.W, map[string]string{"a.txt": "hello\n"})
	res := s.Call(t.Context(), s.Conversation("s"), "grep", `{"pattern":"hello"}`)
	require.False(t, res.IsError)
	res = s.Call(t.Context(), s.Conversation("s"), "edit", `{"file_path":"a.txt","old_string":"hello","new_string":"bye"}`)
	assert.Equal(t, "FS_NOT_OBSERVED", res.Code(), "a grep hit is not a read")
}

// lockedDirs reports every directory named "locked" as unreadable on its
// opened visit, as the provider does for a directory it cannot read, and
// keeps its children from being visited.
type lockedDirs struct{ *fslocal.Provider }

func (l lockedDirs) Walk(ctx context.Context, root fsapi.Target, opts fsapi.WalkOptions, fn func(fsapi.WalkEntry) error) error {
	return l.Provider.Walk(ctx, root, opts, func(e fsapi.WalkEntry) error {
		if e.Opened && e.Name == "locked" {
			e.Err, e.Files = fsapi.ErrPermission("search", e.Target.DisplayPath, os.ErrPermission), nil
			if err := fn(e); err != nil {
				return err
			}
			return fsapi.SkipDir
		}
		return fn(e)
	})
}

func TestUnreadableDirectoriesAreCounted(t *testing.T) {
	reg, w := mountWith(t, func(p *fslocal.Provider) fsapi.FileSystem { return lockedDirs{p} }, nil)
	writeFiles(t, w, map[string]string{"a.txt": "x\n", "locked/b.txt": "x\n", "sub/locked/c.txt": "x\n"})
	res := call(t.Context(), reg, w, "grep", `{"pattern":"x"}`)
	assert.Equal(t, "Found 1 match\n\na.txt\nLine 1: x\n\n(Skipped 2 unreadable entries.)", res.Text())
	res = call(t.Context(), reg, w, "glob", `{"pattern":"*.txt"}`)
	assert.Equal(t, "a.txt\n\n(Skipped 2 unreadable entries.)", res.Text())
	res = call(t.Context(), reg, w, "glob", `{"pattern":"*.txt","path":"sub"}`)
	assert.Equal(t, "No files found\n\n(Skipped 1 unreadable entry.)", res.Text())
}

// TestIgnoreFilesAboveANamedRoot: the ignore files of every directory from
// the workspace down to the root's parent apply below the root, relative
// to their own directories (search.md §6.4.1).
func TestIgnoreFilesAboveANamedRoot(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	writeFiles(t, s.W, map[string]string{
		".gitignore":       "out/*\n/a/b/gen/\n",
		"a/.ignore":        "*.tmp\n",
		"a/b/gen/x.txt":    "hit\n",
		"a/b/keep.txt":     "hit\n",
		"a/b/c.tmp":        "hit\n",
		"a/b/out/y.txt":    "hit\n",
		"out/z.txt":        "hit\n",
		"out/d/w.txt":      "hit\n",
		"other/.gitignore": "*.txt\n", // not an ancestor of a/b: no effect there
		"other/o.txt":      "hit\n",
	})
	grep := func(path string) string {
		return s.Call(t.Context(), s.Conversation("s"), "grep", `{"pattern":"hit","path":"`+path+`"}`).Text()
	}
	assert.Equal(t, "Found 2 matches\n\na/b/keep.txt\nLine 1: hit\n\na/b/out/y.txt\nLine 1: hit", grep("a/b"),
		"/a/b/gen/ from the top and *.tmp from a apply; the top's out/* is anchored there, so a/b/out/y.txt stays")
	assert.Equal(t, "No matches found", grep("out"), "out/* matches out/z.txt and the directory out/d")
	assert.Equal(t, "Found 1 match\n\nother/o.txt\nLine 1: hit", grep("other/o.txt"), "a file root is always searched")
	assert.Equal(t, "No matches found", grep("other"))
}
