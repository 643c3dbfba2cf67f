package stacktest_test

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
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/toolfs"
	"github.com/dsh-go/dsh/plugins/tools"
)

// formatters are what runs between an agent's read and its edit: each
// rewrites the file (changing its stat) with the bytes it is given.
var formatters = map[string]func(t *testing.T, path string, data []byte){
	"touch": func(t *testing.T, path string, _ []byte) {
		later := time.Now().Add(time.Minute)
		require.NoError(t, os.Chtimes(path, later, later))
	},
	"an in-place rewrite (gofmt -w)": func(t *testing.T, path string, data []byte) {
		require.NoError(t, os.WriteFile(path, data, 0o644))
	},
	"an atomic save (an IDE's autosave)": func(t *testing.T, path string, data []byte) {
		tmp := filepath.Join(filepath.Dir(path), ".save-tmp")
		require.NoError(t, os.WriteFile(tmp, data, 0o644))
		require.NoError(t, os.Rename(tmp, path))
	},
}

// TestAFormatterThatChangesNothingDoesNotMakeTheEditStale is issue 27's
// freshness by content ([D24]) through the tools: after a read, a
// rewrite with identical bytes lets write, edit and multi_edit land
// without a re-read; one that changes a byte is FS_STALE_VERSION and
// nothing is written.
func TestAFormatterThatChangesNothingDoesNotMakeTheEditStale(t *testing.T) {
	const text = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	calls := map[string]string{
		"edit":       `{"file_path":"m.go","old_string":"hi","new_string":"there"}`,
		"write":      `{"file_path":"m.go","content":"package main\n"}`,
		"multi_edit": `{"file_path":"m.go","edits":[{"old_string":"hi","new_string":"there"}]}`,
	}
	for fname, format := range formatters {
		for tool, args := range calls {
			t.Run(fname+", the same bytes, then "+tool, func(t *testing.T) {
				s := stacktest.New(t, stacktest.Options{ToolFS: map[string]any{"multiEdit": true}})
				write(t, s, "m.go", text)
				conv := s.Conversation("c")
				require.False(t, s.Call(t.Context(), conv, "read", `{"file_path":"m.go","limit":1}`).IsError)
				format(t, filepath.Join(s.W, "m.go"), []byte(text))
				res := s.Call(t.Context(), conv, tool, args)
				assert.False(t, res.IsError, res.Text())
				assert.NotEqual(t, text, read(t, s, "m.go"))
			})
			if fname == "touch" {
				continue
			}
			t.Run(fname+", one byte changed, then "+tool, func(t *testing.T) {
				s := stacktest.New(t, stacktest.Options{ToolFS: map[string]any{"multiEdit": true}})
				write(t, s, "m.go", text)
				conv := s.Conversation("c")
				require.False(t, s.Call(t.Context(), conv, "read", `{"file_path":"m.go"}`).IsError)
				changed := strings.Replace(text, "main()", "mian()", 1) // the same size: only the bytes tell
				format(t, filepath.Join(s.W, "m.go"), []byte(changed))
				res := s.Call(t.Context(), conv, tool, args)
				verb := map[bool]string{true: "write", false: "edit"}[tool == "write"]
				assert.Equal(t, `Error: cannot `+verb+` "`+s.W+`/m.go": file changed since it was read — re-read the file, then retry`, res.Text())
				assert.Equal(t, "FS_STALE_VERSION", res.Code())
				assert.Equal(t, changed, read(t, s, "m.go"))
			})
		}
	}
	t.Run("an edit after an edit, the formatter between", func(t *testing.T) {
		s := stacktest.New(t, stacktest.Options{})
		write(t, s, "m.go", text)
		conv := s.Conversation("c")
		require.False(t, s.Call(t.Context(), conv, "read", `{"file_path":"m.go"}`).IsError)
		require.False(t, s.Call(t.Context(), conv, "edit", `{"file_path":"m.go","old_string":"hi","new_string":"one"}`).IsError)
		formatters["an atomic save (an IDE's autosave)"](t, filepath.Join(s.W, "m.go"), []byte(read(t, s, "m.go")))
		res := s.Call(t.Context(), conv, "edit", `{"file_path":"m.go","old_string":"one","new_string":"two"}`)
		assert.False(t, res.IsError, "the edit's own observation carries the digest of what it wrote: %s", res.Text())
	})
	t.Run("the editor's view and str_replace", func(t *testing.T) {
		s := stacktest.New(t, stacktest.Options{ToolEditor: map[string]any{}})
		write(t, s, "m.go", text)
		conv := s.Conversation("c")
		require.False(t, s.Call(t.Context(), conv, "str_replace_editor", `{"command":"view","path":"m.go"}`).IsError)
		formatters["an in-place rewrite (gofmt -w)"](t, filepath.Join(s.W, "m.go"), []byte(text))
		res := s.Call(t.Context(), conv, "str_replace_editor", `{"command":"str_replace","path":"m.go","old_str":"hi","new_str":"yo"}`)
		assert.False(t, res.IsError, res.Text())
		formatters["an in-place rewrite (gofmt -w)"](t, filepath.Join(s.W, "m.go"), []byte(read(t, s, "m.go")))
		res = s.Call(t.Context(), conv, "str_replace_editor", `{"command":"insert","path":"m.go","insert_line":0,"new_str":"// x"}`)
		assert.False(t, res.IsError, res.Text())
	})
	t.Run("past digestMaxBytes freshness is by stat", func(t *testing.T) {
		s := stacktest.New(t, stacktest.Options{FSLocal: map[string]any{"digestMaxBytes": 16}})
		write(t, s, "m.go", text)
		conv := s.Conversation("c")
		require.False(t, s.Call(t.Context(), conv, "read", `{"file_path":"m.go"}`).IsError)
		formatters["touch"](t, filepath.Join(s.W, "m.go"), nil)
		res := s.Call(t.Context(), conv, "edit", `{"file_path":"m.go","old_string":"hi","new_string":"there"}`)
		assert.Equal(t, "FS_STALE_VERSION", res.Code())
	})
}

// TestMultiEditIsOptIn: the default toolfs registers four tools; with
// multiEdit, multi_edit comes fifth, and a reload can take it away.
func TestMultiEditIsOptIn(t *testing.T) {
	names := func(s *stacktest.Stack) []string {
		var out []string
		for _, tl := range s.Registry.Tools() {
			out = append(out, tl.Name)
		}
		return out
	}
	s := stacktest.New(t, stacktest.Options{})
	assert.NotContains(t, names(s), "multi_edit")
	res := s.Call(t.Context(), s.Conversation("c"), "multi_edit", `{"file_path":"a","edits":[]}`)
	assert.Equal(t, "UNKNOWN_TOOL", res.Code())

	s = stacktest.New(t, stacktest.Options{ToolFS: map[string]any{"multiEdit": true}})
	assert.Contains(t, names(s), "multi_edit")
	require.NoError(t, s.ToolFS.Update(t.Context(), toolfs.DefaultConfig()))
	assert.NotContains(t, names(s), "multi_edit")
}

// TestMultiEdit: all or nothing, one intent, one observation, the texts of
// docs/editing.md.
func TestMultiEdit(t *testing.T) {
	const text = "alpha\nbeta\ngamma\n"
	newStack := func(t *testing.T, toolfs map[string]any) (*stacktest.Stack, *tools.Conversation) {
		cfg := map[string]any{"multiEdit": true}
		for k, v := range toolfs {
			cfg[k] = v
		}
		s := stacktest.New(t, stacktest.Options{ToolFS: cfg})
		write(t, s, "a.txt", text)
		return s, s.Conversation("c")
	}
	t.Run("the edits land in order, as one mutation", func(t *testing.T) {
		s, conv := newStack(t, nil)
		var intents, observed int
		_, err := events.FSEditIntent.On(s.Host.Root(), func(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.EditGuard]) (*fsapi.EditGuard, error) {
			intents++
			return next(ctx)
		}, host.Prepend())
		require.NoError(t, err)
		_, err = events.FSObserved.On(s.Host.Root(), func(context.Context, events.Observation) error { observed++; return nil })
		require.NoError(t, err)
		require.False(t, s.Call(t.Context(), conv, "read", `{"file_path":"a.txt"}`).IsError)
		observed = 0
		res := s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"alpha","new_string":"ALPHA"},{"old_string":"ALPHA\nbeta","new_string":"AB"},{"old_string":"a","new_string":"4","replace_all":true}]}`)
		require.False(t, res.IsError, res.Text())
		assert.Equal(t, "The file "+s.W+"/a.txt has been updated successfully: 3 edits applied.", res.Text())
		assert.Equal(t, "AB\ng4mm4\n", read(t, s, "a.txt"))
		assert.Equal(t, 1, intents, "fs/edit-intent once")
		assert.Equal(t, 1, observed, "fs/observed once")
		meta, err := json.Marshal(res.Meta)
		require.NoError(t, err)
		assert.JSONEq(t, `{"diffs":[{"path":"a.txt","oldText":"alpha\nbeta\ngamma","newText":"AB\ng4mm4"}]}`, string(meta))
		res = s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"AB","new_string":"x"}]}`)
		assert.Equal(t, "The file "+s.W+"/a.txt has been updated successfully: 1 edit applied.", res.Text())
	})
	t.Run("a failing edit fails the call, names its index and writes nothing", func(t *testing.T) {
		s, conv := newStack(t, nil)
		require.False(t, s.Call(t.Context(), conv, "read", `{"file_path":"a.txt"}`).IsError)
		p := s.W + "/a.txt"
		for args, want := range map[string]string{
			`[{"old_string":"zeta","new_string":"z"}]`: `Error: edits[0] failed, so no edit was applied: old_string was not found in "` + p + `"`,
			`[{"old_string":"alpha","new_string":"a"},{"old_string":"a","new_string":"b"}]`: `Error: edits[1] failed on the result of edits[0], so no edit was applied: old_string matched 4 times in "` + p +
				`"; provide a more specific old_string or set replace_all to true`,
			`[{"old_string":"alpha","new_string":"a"},{"old_string":"beta","new_string":"b"},{"old_string":"gamma ","new_string":"g"}]`: `Error: edits[2] failed on the result of edits[0]-edits[1], so no edit was applied: old_string was not found in "` + p + `"` +
				"\nNear match at line 3, differing only in spaces and tabs (nothing was replaced):\n3: gamma",
		} {
			res := s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":`+args+`}`)
			assert.Equal(t, want, res.Text())
			assert.Contains(t, []string{"FS_EDIT_NOT_FOUND", "FS_AMBIGUOUS_EDIT"}, res.Code())
			assert.Equal(t, text, read(t, s, "a.txt"))
		}
		res := s.Call(t.Context(), conv, "edit", `{"file_path":"a.txt","old_string":"beta","new_string":"b"}`)
		assert.False(t, res.IsError, "the failed calls recorded nothing and changed nothing: %s", res.Text())
	})
	t.Run("a chain of replace_all edits stops at the growth bound, uncoded", func(t *testing.T) {
		s, conv := newStack(t, nil)
		require.False(t, s.Call(t.Context(), conv, "read", `{"file_path":"a.txt"}`).IsError)
		grow := `{"old_string":"a","new_string":"aaaaaaaaaaaaaaaa","replace_all":true}`
		res := s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":[`+strings.Repeat(grow+",", 99)+grow+`]}`)
		assert.Equal(t, "Error: edits[5] failed on the result of edits[0]-edits[4], so no edit was applied: the edits would make the file larger than 16777233 bytes (at most twice its size, or its size plus 16 MiB)", res.Text(),
			"5 a: 80, ..., 5·16⁵ = 5.2 MB, then 84 MB at the sixth")
		assert.Empty(t, res.Code())
		assert.Equal(t, text, read(t, s, "a.txt"))
	})
	t.Run("the policy guards it as it guards edit", func(t *testing.T) {
		s, conv := newStack(t, nil)
		res := s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"alpha","new_string":"a"}]}`)
		assert.Equal(t, `Error: edit requires reading "`+s.W+`/a.txt" first — read the file, then retry`, res.Text())
		assert.Equal(t, "FS_NOT_OBSERVED", res.Code())
	})
	t.Run("a dry run shows the diff, runs no intent and records nothing", func(t *testing.T) {
		s, conv := newStack(t, nil)
		res := s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"beta","new_string":"BETA"},{"old_string":"gamma\n","new_string":"gamma\ndelta\n"}],"dry_run":true}`)
		require.False(t, res.IsError, res.Text())
		p := s.W + "/a.txt"
		assert.Equal(t, "--- a/"+p+"\n+++ b/"+p+"\n@@ -1,3 +1,4 @@\n alpha\n-beta\n+BETA\n gamma\n+delta", res.Text())
		assert.Equal(t, text, read(t, s, "a.txt"))
		assert.Nil(t, res.Meta, "a dry run has no diffs meta")
		res = s.Call(t.Context(), conv, "edit", `{"file_path":"a.txt","old_string":"beta","new_string":"b"}`)
		assert.Equal(t, "FS_NOT_OBSERVED", res.Code(), "the dry run recorded no observation")

		res = s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"beta","new_string":"b"},{"old_string":"b","new_string":"beta"}],"dry_run":true}`)
		assert.Equal(t, "The edits would leave "+p+" unchanged.", res.Text())
		res = s.Call(t.Context(), conv, "multi_edit", `{"file_path":"nope.txt","edits":[{"old_string":"a","new_string":"b"}],"dry_run":true}`)
		assert.Equal(t, `Error: cannot edit "`+s.W+`/nope.txt": not found`, res.Text())
		assert.Equal(t, "FS_NOT_FOUND", res.Code())
		res = s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"beta","new_string":"b"},{"old_string":"beta","new_string":"c"}],"dry_run":true}`)
		assert.Equal(t, `Error: edits[1] failed on the result of edits[0], so no edit was applied: old_string was not found in "`+p+`"`, res.Text())
	})
	t.Run("a dry run's diff is bounded by diffMaxBytes", func(t *testing.T) {
		s, conv := newStack(t, map[string]any{"diffMaxBytes": 60})
		res := s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"A","replace_all":true}],"dry_run":true}`)
		require.False(t, res.IsError, res.Text())
		text := res.Text()
		body, tail, ok := strings.Cut(text, "\n(diff truncated at 60 bytes)")
		require.True(t, ok, text)
		assert.Empty(t, tail)
		assert.LessOrEqual(t, len(body), 60)
		assert.True(t, strings.HasPrefix(body, "--- a/"), body)
	})
	t.Run("a dry run past diffBasisMaxBytes names the bound", func(t *testing.T) {
		s, conv := newStack(t, map[string]any{"diffBasisMaxBytes": 8})
		res := s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"A","replace_all":true}],"dry_run":true}`)
		assert.Equal(t, "(diff omitted: "+s.W+"/a.txt is larger than 8 bytes)", res.Text())
	})
	t.Run("argument checks come first and are uncoded", func(t *testing.T) {
		s, conv := newStack(t, nil)
		var many []string
		for range 101 {
			many = append(many, `{"old_string":"a","new_string":"b"}`)
		}
		for args, want := range map[string]string{
			`{"file_path":" ","edits":[]}`:                                    "file_path must be a non-empty string",
			`{"file_path":"a.txt","edits":[]}`:                                "edits must be a non-empty array",
			`{"file_path":"a.txt","edits":[` + strings.Join(many, ",") + `]}`: "edits must hold at most 100 edits",
			`{"file_path":"a.txt","edits":[3]}`:                               "edits[0] must be an object",
			`{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"b"},{"oldText":"a","newText":"b"}]}`: `edits[1]: unknown property "newText"; unknown property "oldText"; known properties: old_string, new_string, replace_all`,
			`{"file_path":"a.txt","edits":[{"new_string":"b"}]}`:                                                "edits[0].old_string must be a string",
			`{"file_path":"a.txt","edits":[{"old_string":"a","new_string":null}]}`:                              "edits[0].new_string must be a string",
			`{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"b","replace_all":"yes"}]}`:           "edits[0].replace_all must be a boolean",
			`{"file_path":"a.txt","edits":[{"old_string":"","new_string":"b"}]}`:                                "edits[0].old_string must be a non-empty string",
			`{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"a"}]}`:                               "edits[0]: old_string and new_string must differ",
			`{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"b"}],"justification":"j"}`:           "invalid escalation: justification is only valid together with sandbox_permissions",
		} {
			res := s.Call(t.Context(), conv, "multi_edit", args)
			assert.Equal(t, "Error: "+want, res.Text(), args)
			assert.Empty(t, res.Code())
		}
		res := s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":{}}`)
		assert.Equal(t, `Error: invalid arguments: "edits" must be an array`, res.Text())
		assert.Equal(t, "INVALID_ARGS", res.Code())
		res = s.Call(t.Context(), conv, "multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"b"}],"dry_run":"yes"}`)
		assert.Equal(t, `Error: invalid arguments: "dry_run" must be a boolean`, res.Text())
		assert.Equal(t, text, read(t, s, "a.txt"))
	})
}
