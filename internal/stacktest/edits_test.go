package stacktest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
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
// rewrite with identical bytes lets write and edit land
// without a re-read; one that changes a byte is FS_STALE_VERSION and
// nothing is written.
func TestAFormatterThatChangesNothingDoesNotMakeTheEditStale(t *testing.T) {
	const text = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	calls := map[string]string{
		"edit":  `{"file_path":"m.go","old_string":"hi","new_string":"there"}`,
		"write": `{"file_path":"m.go","content":"package main\n"}`,
	}
	for fname, format := range formatters {
		for tool, args := range calls {
			t.Run(fname+", the same bytes, then "+tool, func(t *testing.T) {
				s := stacktest.New(t, stacktest.Options{})
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
				s := stacktest.New(t, stacktest.Options{})
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
