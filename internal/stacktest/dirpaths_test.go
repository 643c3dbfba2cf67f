package stacktest_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// A file path ending in "/" names a directory: read, write, edit and the
// editor's file commands refuse it before anything is created, read or
// observed (contract §6.4a [D23]); a directory's view still takes one.
func TestAFilePathNeverEndsWithASlash(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{NoPolicy: true, ToolEditor: map[string]any{}})
	require.NoError(t, os.Mkdir(filepath.Join(s.W, "emptydir"), 0o755))
	write(t, s, "jar.go", "package jar\n")
	conv := s.Conversation("slash")
	for _, tc := range []struct{ tool, args, want string }{
		{"write", `{"file_path":"emptydir/","content":"x"}`, `cannot write "` + s.W + `/emptydir/": a file path must not end with "/"`},
		{"write", `{"file_path":"new/","content":"x"}`, `cannot write "` + s.W + `/new/": a file path must not end with "/"`},
		{"read", `{"file_path":"jar.go/"}`, `cannot read "` + s.W + `/jar.go/": a file path must not end with "/"`},
		{"read", `{"file_path":"jar.go//"}`, `cannot read "` + s.W + `/jar.go/": a file path must not end with "/"`},
		{"edit", `{"file_path":"jar.go/","old_string":"jar","new_string":"pot"}`, `cannot edit "` + s.W + `/jar.go/": a file path must not end with "/"`},
		{"str_replace_editor", `{"command":"create","path":"new/","file_text":"x"}`, `cannot write "` + s.W + `/new/": a file path must not end with "/"`},
		{"str_replace_editor", `{"command":"str_replace","path":"jar.go/","old_str":"jar","new_str":"pot"}`, `cannot edit "` + s.W + `/jar.go/": a file path must not end with "/"`},
		{"str_replace_editor", `{"command":"insert","path":"jar.go/","insert_line":0,"new_str":"x"}`, `cannot insert into "` + s.W + `/jar.go/": a file path must not end with "/"`},
		{"str_replace_editor", `{"command":"view","path":"jar.go/"}`, `cannot view "` + s.W + `/jar.go/": a file path must not end with "/"`},
	} {
		res := s.Call(t.Context(), conv, tc.tool, tc.args)
		assert.Equal(t, "Error: "+tc.want, res.Text(), tc.args)
		assert.Equal(t, "FS_INVALID_PATH", res.Code(), tc.args)
	}
	assert.Equal(t, "package jar\n", read(t, s, "jar.go"))
	fi, err := os.Stat(filepath.Join(s.W, "emptydir"))
	require.NoError(t, err)
	assert.True(t, fi.IsDir(), "no regular file replaced the directory")
	_, err = os.Lstat(filepath.Join(s.W, "new"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	res := s.Call(t.Context(), conv, "str_replace_editor", `{"command":"view","path":"emptydir/"}`)
	assert.False(t, res.IsError, res.Text())
}

// An unobserved directory or special file is reported by its type, not
// with "read the file, then retry", which no read can satisfy (contract
// §6.9a [D25], editor.md §10 [R15]).
func TestAnUnobservedDirectoryIsReportedAsOne(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{ToolEditor: map[string]any{}})
	require.NoError(t, os.Mkdir(filepath.Join(s.W, "d"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(s.W, "p"), 0o644))
	write(t, s, "f.txt", "x\n")
	conv := s.Conversation("dirs")
	for _, tc := range []struct{ args, want string }{
		{`{"file_path":"d","old_string":"a","new_string":"b"}`, `cannot edit "` + s.W + `/d": not a regular file`},
		{`{"file_path":"p","old_string":"a","new_string":"b"}`, `cannot edit "` + s.W + `/p": not a regular file`},
	} {
		res := s.Call(t.Context(), conv, "edit", tc.args)
		assert.Equal(t, "Error: "+tc.want, res.Text())
		assert.Equal(t, "FS_NOT_REGULAR_FILE", res.Code())
	}
	for _, tc := range []struct{ args, want string }{
		{`{"command":"str_replace","path":"d","old_str":"a"}`, "The path " + s.W + "/d is a directory and only the `view` command can be used on directories"},
		{`{"command":"insert","path":"d","insert_line":0,"new_str":"a"}`, "The path " + s.W + "/d is a directory and only the `view` command can be used on directories"},
		{`{"command":"str_replace","path":"p","old_str":"a"}`, `cannot edit "` + s.W + `/p": not a regular file`},
		{`{"command":"insert","path":"p","insert_line":0,"new_str":"a"}`, `cannot insert into "` + s.W + `/p": not a regular file`},
	} {
		res := s.Call(t.Context(), conv, "str_replace_editor", tc.args)
		assert.Equal(t, "Error: "+tc.want, res.Text())
		assert.Equal(t, "FS_NOT_REGULAR_FILE", res.Code())
	}
	res := s.Call(t.Context(), conv, "edit", `{"file_path":"f.txt","old_string":"x","new_string":"y"}`)
	assert.Equal(t, "Error: edit requires reading \""+s.W+"/f.txt\" first — read the file, then retry", res.Text(), "a file still needs its read")
}
