package fsapi_test

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// TestErrorTemplates checks every message of contract §2.3 byte for byte,
// with its code and operation.
func TestErrorTemplates(t *testing.T) {
	const p = `/w/a "b"	c\d.txt` // quotes, a tab and a backslash stay literal
	cause := errors.New("cause")
	tests := []struct {
		name string
		err  *fsapi.Error
		msg  string
		code fsapi.Code
		op   string
	}{
		{"blank path from resolve", fsapi.ErrBlankPath("resolve"), "file_path must be a non-empty string", fsapi.CodeNotFound, "resolve"},
		{"blank path from lstat", fsapi.ErrBlankPath("lstat"), "file_path must be a non-empty string", fsapi.CodeNotFound, "lstat"},
		{"parent not a directory", fsapi.ErrParentNotDirectory(p, cause), `cannot resolve "` + p + `": a parent path segment is not a directory`, fsapi.CodeNotFound, "resolve"},
		{"read not found", fsapi.ErrNotFound("read", p, nil), `cannot read "` + p + `": not found`, fsapi.CodeNotFound, "read"},
		{"list not found", fsapi.ErrNotFound("list", p, nil), `cannot list "` + p + `": not found`, fsapi.CodeNotFound, "list"},
		{"edit not found", fsapi.ErrNotFound("edit", p, nil), `cannot edit "` + p + `": not found`, fsapi.CodeNotFound, "edit"},
		{"read offset out of range", fsapi.ErrOffsetOutOfRange("7", p, 3, "lines"), `offset 7 is out of range for "` + p + `" (3 lines)`, fsapi.CodeNotFound, ""},
		{"list offset out of range is never singular", fsapi.ErrOffsetOutOfRange("2", p, 1, "entries"), `offset 2 is out of range for "` + p + `" (1 entries)`, fsapi.CodeNotFound, ""},
		{"double fault in cleanup", fsapi.ErrWriteDoubleFault(errors.New("m1"), errors.New("m2"), "cleanup"), "write failed (m1) and temp cleanup failed (m2)", fsapi.CodeNotFound, "write"},
		{"double fault in close", fsapi.ErrWriteDoubleFault(errors.New("m1"), errors.New("m2"), "close"), "write failed (m1) and temp close failed (m2)", fsapi.CodeNotFound, "write"},
		{"list of a non-directory", fsapi.ErrNotDirectory(p), `cannot list "` + p + `": not a directory`, fsapi.CodeNotDirectory, "list"},
		{"read of a binary file", fsapi.ErrBinary("read", p), `cannot read "` + p + `": binary file`, fsapi.CodeNotText, "read"},
		{"edit of a binary file", fsapi.ErrBinary("edit", p), `cannot edit "` + p + `": binary file`, fsapi.CodeNotText, "edit"},
		{"in-place write that failed before touching", fsapi.ErrWriteNotChanged("write", p, "no space left on device", cause), `cannot write "` + p + `": no space left on device; the file was not changed`, fsapi.CodeWriteFailed, "write"},
		{"in-place edit rolled back", fsapi.ErrWriteRestored("edit", p, "input/output error", cause), `cannot edit "` + p + `": input/output error; the file was restored`, fsapi.CodeWriteFailed, "edit"},
		{"interrupted rewrite", fsapi.ErrInterruptedRewrite("write", p, "/w/.a.x.dsh-rewrite"), `cannot write "` + p + `": an interrupted rewrite left a copy of its new content in "/w/.a.x.dsh-rewrite"; the file was not changed`, fsapi.CodeWriteFailed, "write"},
		{"component too long", fsapi.ErrComponentTooLong(p, cause), `cannot resolve "` + p + `": a path component is too long`, fsapi.CodeInvalidPath, "resolve"},
		{"NUL in a path", fsapi.ErrNULInPath("/w/a\x00b\x00"), `cannot resolve "/w/a\0b\0": the path contains a NUL character`, fsapi.CodeInvalidPath, "resolve"},
		{"read of invalid UTF-8", fsapi.ErrInvalidUTF8("read", p), `cannot read "` + p + `": invalid UTF-8 text`, fsapi.CodeNotText, "read"},
		{"edit of invalid UTF-8", fsapi.ErrInvalidUTF8("edit", p), `cannot edit "` + p + `": invalid UTF-8 text`, fsapi.CodeNotText, "edit"},
		{"read of a non-file", fsapi.ErrNotRegularFile("read", p), `cannot read "` + p + `": not a regular file`, fsapi.CodeNotRegularFile, "read"},
		{"write onto a non-file", fsapi.ErrNotRegularFile("write", p), `cannot write "` + p + `": not a regular file`, fsapi.CodeNotRegularFile, "write"},
		{"edit of a non-file", fsapi.ErrNotRegularFile("edit", p), `cannot edit "` + p + `": not a regular file`, fsapi.CodeNotRegularFile, "edit"},
		{"list permission", fsapi.ErrPermission("list", p, cause), `cannot list "` + p + `": permission denied`, fsapi.CodePermissionDenied, "list"},
		{"read permission", fsapi.ErrPermission("read", p, cause), `cannot read "` + p + `": permission denied`, fsapi.CodePermissionDenied, "read"},
		{"write permission", fsapi.ErrPermission("write", p, cause), `cannot write "` + p + `": permission denied`, fsapi.CodePermissionDenied, "write"},
		{"edit permission", fsapi.ErrPermission("edit", p, cause), `cannot edit "` + p + `": permission denied`, fsapi.CodePermissionDenied, "edit"},
		{"resolve permission", fsapi.ErrPermission("resolve", p, cause), `cannot resolve "` + p + `": permission denied`, fsapi.CodePermissionDenied, "resolve"},
		{"stat permission", fsapi.ErrPermission("stat", p, cause), `cannot stat "` + p + `": permission denied`, fsapi.CodePermissionDenied, "stat"},
		{"outside the workspace", fsapi.ErrOutsideWorkspace(p, nil), `cannot resolve "` + p + `": outside the workspace`, fsapi.CodeSandboxDenied, "resolve"},
		{"list I/O error carries the cause text", fsapi.ErrListIO(p, errors.New("too many levels of symbolic links")), `cannot list "` + p + `": too many levels of symbolic links`, fsapi.CodeIOError, "list"},
		{"write onto a vanished file", fsapi.ErrNoLongerExists(p), `cannot write "` + p + `": file no longer exists`, fsapi.CodeStaleVersion, "write"},
		{"write onto a changed file", fsapi.ErrChanged("write", p), `cannot write "` + p + `": file changed since it was read`, fsapi.CodeStaleVersion, "write"},
		{"edit of a changed file", fsapi.ErrChanged("edit", p), `cannot edit "` + p + `": file changed since it was read`, fsapi.CodeStaleVersion, "edit"},
		{"overwrite without a read", fsapi.ErrOverwriteUnread(p), `cannot overwrite existing "` + p + `" without reading it first`, fsapi.CodeNotObserved, "write"},
		{"edit without a read", fsapi.ErrEditUnread(p), `edit requires reading "` + p + `" first`, fsapi.CodeNotObserved, "edit"},
		{"ambiguous edit", fsapi.ErrAmbiguousEdit(3, p), `old_string matched 3 times in "` + p + `"; provide a more specific old_string or set replace_all to true`, fsapi.CodeAmbiguousEdit, "edit"},
		{"edit match not found", fsapi.ErrEditNotFound(p), `old_string was not found in "` + p + `"`, fsapi.CodeEditNotFound, "edit"},
		{"empty old string", fsapi.ErrEmptyOldString(), "old_string must be a non-empty string", fsapi.CodeEditNotFound, "edit"},
	}
	for _, op := range []string{"resolve", "stat", "lstat", "read", "list", "write", "edit"} {
		tests = append(tests, struct {
			name string
			err  *fsapi.Error
			msg  string
			code fsapi.Code
			op   string
		}{op + " aborted", fsapi.ErrAborted(op, context.Canceled), op + " aborted", fsapi.CodeAborted, op})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.EqualError(t, tc.err, tc.msg)
			assert.Equal(t, tc.code, tc.err.Code)
			assert.Equal(t, string(tc.code), tc.err.ErrorCode())
			assert.Equal(t, "FsError", tc.err.ErrorName())
			assert.Equal(t, tc.op, tc.err.Op)
		})
	}
}

func TestErrorWrapsItsCause(t *testing.T) {
	err := fsapi.ErrPermission("read", "/x", &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission})
	assert.ErrorIs(t, err, fs.ErrPermission)
	aborted := fsapi.ErrAborted("write", context.DeadlineExceeded)
	assert.ErrorIs(t, aborted, context.DeadlineExceeded)
	var fe *fsapi.Error
	require.ErrorAs(t, error(aborted), &fe)
	assert.Equal(t, fsapi.CodeAborted, fe.Code)
	assert.Nil(t, fsapi.ErrNoLongerExists("/x").Unwrap())
	assert.Equal(t, "/x", fsapi.ErrNoLongerExists("/x").Path)
}

func TestDisplay(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"valid text is unchanged", "héllo/😀", "héllo/😀"},
		{"each invalid byte becomes one U+FFFD", "a\xff\xfeb", "a\uFFFD\uFFFDb"},
		{"a truncated sequence is replaced byte by byte", "x\xE2\x82", "x\uFFFD\uFFFD"},
		{"controls and quotes stay literal", "a\t\"b\\", "a\t\"b\\"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, fsapi.Display(tc.in))
		})
	}
	t.Run("messages show the display form of the path", func(t *testing.T) {
		err := fsapi.ErrNotFound("read", "/w/\xff.txt", nil)
		assert.EqualError(t, err, `cannot read "/w/`+"\uFFFD"+`.txt": not found`)
		assert.Equal(t, "/w/\xff.txt", err.Path, "the raw path stays in Path")
	})
}

func TestWireWords(t *testing.T) {
	assert.Equal(t, "FS_STALE_VERSION", fsapi.CodeStaleVersion.String())
	assert.Equal(t, "FS_INVALID_PATH", fsapi.CodeInvalidPath.String())
	assert.Equal(t, "FS_WRITE_FAILED", fsapi.CodeWriteFailed.String())
	assert.Equal(t, "file", fsapi.TypeFile.String())
	assert.Equal(t, "symlink", fsapi.TypeSymlink.String())
	assert.Equal(t, "create-if-absent", fsapi.CreateIfAbsent.String())
	assert.Equal(t, "replace-if-version", fsapi.ReplaceIfVersion.String())
	assert.Equal(t, "unknown", fsapi.IntentKind(0).String())
}

// TestSearchErrorTemplates checks the message rows search.md §2.3 adds.
func TestSearchErrorTemplates(t *testing.T) {
	const p = `/w/a "b"`
	cause := errors.New("too many open files")
	tests := []struct {
		err  *fsapi.Error
		msg  string
		code fsapi.Code
	}{
		{fsapi.ErrSearchNotFound(p, nil), `cannot search "` + p + `": not found`, fsapi.CodeNotFound},
		{fsapi.ErrSearchNotDirectory(p), `cannot search "` + p + `": not a directory`, fsapi.CodeNotDirectory},
		{fsapi.ErrSearchNotRegularFile(p), `cannot search "` + p + `": not a regular file`, fsapi.CodeNotRegularFile},
		{fsapi.ErrPermission("search", p, cause), `cannot search "` + p + `": permission denied`, fsapi.CodePermissionDenied},
		{fsapi.ErrSearchIO(p, cause), `cannot search "` + p + `": too many open files`, fsapi.CodeIOError},
		{fsapi.ErrOffsetOutOfRange("6", p, 5, "paths"), `offset 6 is out of range for "` + p + `" (5 paths)`, fsapi.CodeNotFound},
		{fsapi.ErrOffsetOutOfRange("2", p, 1, "matches"), `offset 2 is out of range for "` + p + `" (1 matches)`, fsapi.CodeNotFound},
		{fsapi.ErrAborted("walk", context.Canceled), "walk aborted", fsapi.CodeAborted},
	}
	for _, tc := range tests {
		assert.EqualError(t, tc.err, tc.msg)
		assert.Equal(t, tc.code, tc.err.Code, tc.msg)
	}
	assert.ErrorIs(t, fsapi.ErrSearchIO(p, cause), cause)
}
