package tooleditor_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
	"github.com/dsh-go/dsh/plugins/tooleditor"
	"github.com/dsh-go/dsh/plugins/tools"
)

func TestMain(m *testing.M) {
	syscall.Umask(0o022)
	os.Exit(m.Run())
}

// editorStack is the default deployment plus tooleditor with cfg.
func editorStack(t testing.TB, noPolicy bool, cfg map[string]any) *stacktest.Stack {
	t.Helper()
	if cfg == nil {
		cfg = map[string]any{}
	}
	return stacktest.New(t, stacktest.Options{NoPolicy: noPolicy, ToolEditor: cfg})
}

func write(t testing.TB, st *stacktest.Stack, rel, content string) {
	t.Helper()
	p := filepath.Join(st.W, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func content(t testing.TB, st *stacktest.Stack, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(st.W, rel))
	require.NoError(t, err)
	return string(b)
}

func editor(t testing.TB, st *stacktest.Stack, session *tools.Conversation, args string) tools.Result {
	t.Helper()
	return st.Call(context.Background(), session, tooleditor.ToolName, args)
}

func TestConfigLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  map[string]any
		want string
	}{
		{"zero", map[string]any{"maxOutputChars": 0}, "tooleditor: maxOutputChars must be a positive integer"},
		{"a fraction", map[string]any{"maxOutputChars": 2.5}, "tooleditor: maxOutputChars must be a positive integer"},
		{"negative", map[string]any{"maxOutputChars": -1}, "tooleditor: maxOutputChars must be a positive integer"},
		{"not a number", map[string]any{"maxOutputChars": "x"}, "tooleditor: maxOutputChars must be a positive integer"},
		{"a blank description", map[string]any{"description": " \t\u00a0"}, "tooleditor: description must be a non-empty string"},
		{"an empty description", map[string]any{"description": ""}, "tooleditor: description must be a non-empty string"},
		{"a description that is not a string", map[string]any{"description": 3}, "tooleditor: description must be a non-empty string"},
		{"maxOutputChars is checked first", map[string]any{"maxOutputChars": 0, "description": ""}, "tooleditor: maxOutputChars must be a positive integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Decode(tooleditor.Plugin, tc.raw)
			var ce *host.ConfigError
			require.ErrorAs(t, err, &ce)
			require.Len(t, ce.Issues, 1)
			assert.Equal(t, tc.want, ce.Issues[0].Problem)
		})
	}
	t.Run("an unknown key is rejected", func(t *testing.T) {
		_, err := config.Decode(tooleditor.Plugin, map[string]any{"maxOutput": 3})
		assert.ErrorContains(t, err, "unknown key")
	})
	t.Run("defaults and overrides load", func(t *testing.T) {
		cfg, err := config.Decode(tooleditor.Plugin, map[string]any{"maxOutputChars": 7.0, "description": "Edit files."})
		require.NoError(t, err)
		c := cfg.(tooleditor.Config)
		assert.Equal(t, 7, c.MaxOutputChars)
		assert.Equal(t, "Edit files.", c.Description)
		def, err := config.Decode(tooleditor.Plugin, nil)
		require.NoError(t, err)
		assert.Equal(t, tooleditor.DefaultConfig(), def)
	})
}

func TestToolAndSection(t *testing.T) {
	st := editorStack(t, false, nil)
	var names []string
	for _, tool := range st.Registry.Tools() {
		names = append(names, tool.Name)
	}
	assert.Equal(t, []string{"list", "read", "write", "edit", "move", "delete", "mkdir", "file_info", "glob", "grep", "str_replace_editor"}, names, "listed after toolfs, toolfiles and toolsearch, the tool follows their tools")
	tool, ok := st.Registry.Lookup(tooleditor.ToolName)
	require.True(t, ok)
	assert.Equal(t, 7, len(strings.Split(tool.Description, "\n")), "the default description has seven lines")
	assert.True(t, strings.HasPrefix(tool.Description, "View, create and edit text files.\n* view: for a file,"))
	assert.True(t, tool.Destructive)
	assert.False(t, tool.ReadOnly)
	assert.True(t, json.Valid(tool.Parameters))
	for args, want := range map[string]bool{
		`{"command":"view","path":"a"}`: true, `{"command":"str_replace","path":"a"}`: false,
		`{"command":"create","path":"a"}`: false, `{"command":"insert","path":"a"}`: false,
	} {
		var a tools.Args
		require.NoError(t, json.Unmarshal([]byte(args), &a))
		assert.Equal(t, want, tool.ConcurrencySafe(a), args)
	}
	var last tools.Section
	for _, sec := range st.Registry.Sections() {
		if sec.Name == "tool:str_replace_editor" {
			last = sec
		}
	}
	assert.Equal(t, tools.Section{Name: "tool:str_replace_editor", Order: 105, Text: "Use the str_replace_editor tool to view and change text files with its view, create, str_replace and insert commands. View a file before str_replace or insert (the default fs-policy requires it, unless you just created or edited the file in this session), and never copy the line numbers a view shows into old_str."}, last)

	custom := editorStack(t, false, map[string]any{"description": "Edit files."})
	tool, _ = custom.Registry.Lookup(tooleditor.ToolName)
	assert.Equal(t, "Edit files.", tool.Description)
}

func TestLifecycleFollowsTheProvider(t *testing.T) {
	st := editorStack(t, false, nil)
	require.NoError(t, st.FS.Dispose(t.Context()))
	_, ok := st.Registry.Lookup(tooleditor.ToolName)
	assert.False(t, ok, "the tool goes with the provider")
	assert.Empty(t, st.Registry.Sections())
	assert.Equal(t, host.StatePending, st.Editor.State())
	_, err := st.Host.Plugin(t.Context(), fslocal.Plugin, fslocal.Config{Cwd: st.W, Root: st.W})
	require.NoError(t, err)
	_, ok = st.Registry.Lookup(tooleditor.ToolName)
	assert.True(t, ok, "and revives with a new one")
	require.NoError(t, st.Editor.Dispose(t.Context()))
	_, ok = st.Registry.Lookup(tooleditor.ToolName)
	assert.False(t, ok, "disposing tooleditor unregisters the tool")
	for _, s := range st.Registry.Sections() {
		assert.NotEqual(t, "tool:str_replace_editor", s.Name)
	}
}

func TestMeta(t *testing.T) {
	st := editorStack(t, false, nil)
	s := st.Conversation("s")
	res := editor(t, st, s, `{"command":"create","path":"n.txt","file_text":"a\nb\n"}`)
	require.False(t, res.IsError, res.Text())
	b, _ := json.Marshal(res.Meta)
	assert.JSONEq(t, `{"diffs":[]}`, string(b))
	res = editor(t, st, s, `{"command":"view","path":"n.txt"}`)
	assert.Nil(t, res.Meta, "a view has no meta")
	b, _ = json.Marshal(res.Value)
	assert.JSONEq(t, `{"command":"view","path":"`+st.W+`/n.txt"}`, string(b), "the value marshals as the summary")
	res = editor(t, st, s, `{"command":"insert","path":"n.txt","insert_line":1,"new_str":"x"}`)
	require.False(t, res.IsError, res.Text())
	b, _ = json.Marshal(res.Meta)
	assert.JSONEq(t, `{"diffs":[{"path":"n.txt","oldText":"a\nb","newText":"a\nx\nb"}]}`, string(b))
}

func TestClipNeverSplitsACharacter(t *testing.T) {
	// editor.md §15 X12: four U+1F600 with maxOutputChars 11.
	st := editorStack(t, false, map[string]any{"maxOutputChars": 11})
	write(t, st, "e.txt", strings.Repeat("\U0001F600", 4))
	res := editor(t, st, st.Conversation("s"), `{"command":"view","path":"e.txt"}`)
	require.False(t, res.IsError)
	assert.Equal(t, "Here's the content of "+st.W+"/e.txt with line numbers (which has a total of 1 lines):\n     1  \U0001F600<response clipped><NOTE>Output cut here to save context. For the rest of a file, view it again with a view_range that starts after the last line shown; for a directory, view its subdirectories one at a time.</NOTE>", res.Text())

	st = editorStack(t, false, map[string]any{"maxOutputChars": 12})
	write(t, st, "d/abc", "")
	res = editor(t, st, st.Conversation("s"), `{"command":"view","path":"d"}`)
	require.False(t, res.IsError)
	rows := "d\t" + st.W + "/d\nf\t" + st.W + "/d/abc\n"
	assert.Equal(t, "Here're the files and directories up to 2 levels deep in "+st.W+"/d, excluding hidden items, node_modules, and Python cache directories:\n"+
		rows[:12]+"<response clipped><NOTE>Output cut here to save context. For the rest of a file, view it again with a view_range that starts after the last line shown; for a directory, view its subdirectories one at a time.</NOTE>\n", res.Text(), "a directory view ends with the notice and one LF")
}

func TestObservationFailureTurnsTheCallIntoAnError(t *testing.T) {
	// contract [D10]: the mutation is on disk, the result is an error.
	st := editorStack(t, true, nil)
	write(t, st, "a.txt", "one\n")
	_, err := events.FSObserved.On(st.Host.Root(), func(context.Context, events.Observation) error { return errors.New("recorder full") })
	require.NoError(t, err)
	res := editor(t, st, st.Conversation("s"), `{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"two"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "recorder full")
	assert.Equal(t, "two\n", content(t, st, "a.txt"))
	res = editor(t, st, st.Conversation("s"), `{"command":"view","path":"missing.txt"}`)
	assert.Equal(t, "Error: The path "+st.W+"/missing.txt does not exist. Please provide a valid path.", res.Text(), "the not-found error stays the result")
}

// withoutInserter provides the fs service of a provider, hiding InsertText.
type withoutInserter struct{ fsapi.FileSystem }

// failingList is a provider whose ListDir fails for one directory.
type failingList struct {
	*fslocal.Provider
	dir string
}

func (f failingList) ListDir(ctx context.Context, t fsapi.Target) ([]fsapi.DirEntry, error) {
	if t.DisplayPath == f.dir {
		return nil, fsapi.ErrPermission("list", t.DisplayPath, nil)
	}
	return f.Provider.ListDir(ctx, t)
}

// wrappedStack mounts the registry, fslocal's provider (confined to a
// fresh workspace) as wrap returns it, and tooleditor without a policy.
func wrappedStack(t *testing.T, wrap func(p *fslocal.Provider, w string) fsapi.FileSystem) (*tools.Registry, *tools.Conversation) {
	t.Helper()
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	h := host.New()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	_, err = h.Plugin(t.Context(), tools.Plugin, nil)
	require.NoError(t, err)
	wrapped := host.Define[struct{}]("wrappedfs", func(_ context.Context, s *host.Scope, _ struct{}) error {
		p, err := fslocal.New(fslocal.Config{Cwd: w, Root: w})
		if err != nil {
			return err
		}
		_, err = fsapi.Key.Provide(s, wrap(p, w))
		return err
	})
	_, err = h.Plugin(t.Context(), wrapped, nil)
	require.NoError(t, err)
	_, err = h.Plugin(t.Context(), tooleditor.Plugin, nil)
	require.NoError(t, err)
	require.NoError(t, h.Audit())
	reg, _ := tools.Key.Get(h.Root())
	return reg, &tools.Conversation{ID: "s", Cwd: w}
}

func TestInsertNeedsTheCapability(t *testing.T) {
	reg, session := wrappedStack(t, func(p *fslocal.Provider, _ string) fsapi.FileSystem { return withoutInserter{p} })
	w := session.Cwd
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("a\n"), 0o644))
	res := reg.Execute(t.Context(), tooleditor.ToolName, json.RawMessage(`{"command":"insert","path":"a.txt","insert_line":0,"new_str":"x"}`), &tools.Exec{Conv: session})
	assert.Equal(t, "Error: insert is unavailable: the fs service cannot insert lines", res.Text())
	assert.Empty(t, res.Code())
	res = reg.Execute(t.Context(), tooleditor.ToolName, json.RawMessage(`{"command":"str_replace","path":"a.txt","old_str":"a","new_str":"b"}`), &tools.Exec{Conv: session})
	assert.False(t, res.IsError, "the other commands work: %s", res.Text())
	b, _ := os.ReadFile(filepath.Join(w, "a.txt"))
	assert.Equal(t, "b\n", string(b))
}

func TestUnlistableSubdirectoryIsShownWithoutChildren(t *testing.T) {
	// editor.md §8.4 Failures; the viewed directory's own failure fails the call.
	reg, session := wrappedStack(t, func(p *fslocal.Provider, w string) fsapi.FileSystem {
		return failingList{p, filepath.Join(w, "d/locked")}
	})
	w := session.Cwd
	for _, f := range []string{"d/locked/secret.txt", "d/open/a.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(w, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(w, f), nil, 0o644))
	}
	res := reg.Execute(t.Context(), tooleditor.ToolName, json.RawMessage(`{"command":"view","path":"d"}`), &tools.Exec{Conv: session})
	require.False(t, res.IsError, res.Text())
	assert.Equal(t, "Here're the files and directories up to 2 levels deep in "+w+"/d, excluding hidden items, node_modules, and Python cache directories:\n"+
		"d\t"+w+"/d\nd\t"+w+"/d/locked\nd\t"+w+"/d/open\nf\t"+w+"/d/open/a.txt\n\n", res.Text())
	res = reg.Execute(t.Context(), tooleditor.ToolName, json.RawMessage(`{"command":"view","path":"d/locked"}`), &tools.Exec{Conv: session})
	assert.Equal(t, `Error: cannot list "`+w+`/d/locked": permission denied`, res.Text())
	assert.Equal(t, "FS_PERMISSION_DENIED", res.Code())
}

func TestInsertLineBeyondInt64IsOutOfRange(t *testing.T) {
	st := editorStack(t, true, nil)
	write(t, st, "a.txt", "a\n")
	res := editor(t, st, st.Conversation("s"), `{"command":"insert","path":"a.txt","insert_line":1e30,"new_str":"x"}`)
	assert.Equal(t, "Error: Invalid `insert_line` parameter: 1e+30. It should be within the range of lines of the file: [0, 2]", res.Text())
	assert.Equal(t, "a\n", content(t, st, "a.txt"))
}

func TestAmbiguityListsTwentyLinesAndTheRest(t *testing.T) {
	st := editorStack(t, true, nil)
	write(t, st, "x.txt", strings.Repeat("x\n", 25))
	res := editor(t, st, st.Conversation("s"), `{"command":"str_replace","path":"x.txt","old_str":"x","new_str":"y"}`)
	assert.Equal(t, "Error: No replacement was performed. Multiple occurrences of old_str `x` in lines [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, and 5 more]. Please ensure it is unique", res.Text())
	assert.Equal(t, "FS_AMBIGUOUS_EDIT", res.Code())
}

func TestDiffMetaIsBounded(t *testing.T) {
	st := editorStack(t, true, nil)
	s := st.Conversation("s")
	write(t, st, "big.txt", strings.Repeat("x\n", 40000))
	res := editor(t, st, s, `{"command":"insert","path":"big.txt","insert_line":0,"new_str":"`+strings.Repeat("y\\n", 40000)+`"}`)
	require.False(t, res.IsError, res.Text())
	b, _ := json.Marshal(res.Meta)
	assert.JSONEq(t, `{"diffsOmitted":true}`, string(b), "a diff over 65536 bytes is not sent")
}

func TestSandboxModesJudgeTheEditor(t *testing.T) {
	// The sandbox's guards judge create as a write and str_replace and
	// insert as edits, before the policy, without knowing the editor.
	st := stacktest.New(t, stacktest.Options{FSSandbox: map[string]any{"mode": "read-only"}, ToolEditor: map[string]any{}})
	write(t, st, "a.txt", "one\n")
	s := st.Conversation("s")
	refusal := " the sandbox is in read-only mode — the sandbox mode is set by the operator; tell the user instead of retrying"
	for _, tc := range []struct{ args, want string }{
		{`{"command":"create","path":"n.txt","file_text":"x"}`, `Error: cannot write "` + st.W + `/n.txt":` + refusal},
		{`{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"two"}`, `Error: cannot edit "` + st.W + `/a.txt":` + refusal},
		{`{"command":"view","path":"a.txt"}`, "Here's the content of " + st.W + "/a.txt with line numbers (which has a total of 2 lines):\n     1  one\n     2  \n"},
		{`{"command":"insert","path":"a.txt","insert_line":0,"new_str":"zero"}`, `Error: cannot edit "` + st.W + `/a.txt":` + refusal},
	} {
		res := editor(t, st, s, tc.args)
		assert.Equal(t, tc.want, res.Text(), tc.args)
		if res.IsError {
			assert.Equal(t, "FS_SANDBOX_DENIED", res.Code())
		}
	}
	assert.Equal(t, "one\n", content(t, st, "a.txt"))
	_, err := os.Stat(filepath.Join(st.W, "n.txt"))
	assert.True(t, os.IsNotExist(err))
}

// TestStrReplaceShowsANearMatch: the editor's not-found message, as
// before, then the near match's lines (docs/editing.md); the file is not
// touched.
func TestStrReplaceShowsANearMatch(t *testing.T) {
	st := editorStack(t, true, nil)
	const text = "def f():\n    if x:\n        return 1\n"
	write(t, st, "f.py", text)
	p := st.W + "/f.py"
	res := editor(t, st, st.Conversation("s"), `{"command":"str_replace","path":"f.py","old_str":"     2      if x:\n     3          return 1","new_str":"y"}`)
	assert.Equal(t, "Error: No replacement was performed, old_str `     2      if x:\n     3          return 1` did not appear verbatim in "+p+".\n"+
		"Near match at lines 2-3, differing only in line-number prefixes (nothing was replaced):\n2:     if x:\n3:         return 1", res.Text(),
		"view's row prefixes pasted into old_str")
	assert.Equal(t, "FS_EDIT_NOT_FOUND", res.Code())
	res = editor(t, st, st.Conversation("s"), `{"command":"str_replace","path":"f.py","old_str":"if x:\n\treturn 1","new_str":"y"}`)
	assert.Equal(t, "Error: No replacement was performed, old_str `if x:\n\treturn 1` did not appear verbatim in "+p+".\n"+
		"Near match at lines 2-3, differing only in spaces and tabs (nothing was replaced):\n2:     if x:\n3:         return 1", res.Text())
	res = editor(t, st, st.Conversation("s"), `{"command":"str_replace","path":"f.py","old_str":"if y:","new_str":"z"}`)
	assert.Equal(t, "Error: No replacement was performed, old_str `if y:` did not appear verbatim in "+p+".", res.Text(), "no near match: the message as before")
	assert.Equal(t, text, content(t, st, "f.py"))
}
