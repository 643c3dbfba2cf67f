package fsapitest

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Setup returns a fresh provider whose default cwd is an empty workspace
// directory, and that directory's absolute, clean path (the contract's W).
// It is called once per check; cleanup belongs to t.
type Setup func(t *testing.T) (fsys fsapi.FileSystem, cwd string)

// Run runs every check of the suite against providers made by setup, each
// as a subtest named after the behaviour it shows. A failing check fails
// its subtest only.
func Run(t *testing.T, setup Setup) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			fsys, cwd := setup(t)
			c.run(t, &env{t: t, fs: fsys, cwd: cwd})
		})
	}
}

// env is one check's provider and workspace.
type env struct {
	t   *testing.T
	fs  fsapi.FileSystem
	cwd string
}

func (e *env) path(rel string) string { return path.Join(e.cwd, rel) }

// target resolves rel and requires success.
func (e *env) target(rel string) fsapi.Target {
	e.t.Helper()
	tg, err := e.fs.Resolve(context.Background(), rel, fsapi.ResolveOptions{})
	require.NoError(e.t, err)
	return tg
}

// create writes a new file rel with content (verbatim) and returns its
// target and version.
func (e *env) create(rel, content string) (fsapi.Target, fsapi.Version) {
	e.t.Helper()
	tg := e.target(rel)
	out, err := e.fs.WriteText(context.Background(), tg, content, &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent})
	require.NoError(e.t, err)
	require.Equal(e.t, fsapi.OperationCreate, out.Operation)
	return tg, out.Version
}

// read returns rel's text and requires success.
func (e *env) read(tg fsapi.Target) string {
	e.t.Helper()
	text, err := e.fs.ReadText(context.Background(), tg)
	require.NoError(e.t, err)
	return text
}

// coded checks err's message (%s is the display path) and code.
func coded(t *testing.T, err error, code fsapi.Code, msg, display string) {
	t.Helper()
	assert.EqualError(t, err, strings.Replace(msg, "%s", display, 1))
	var fe *fsapi.Error
	if assert.True(t, errors.As(err, &fe), "a coded fsapi.Error") {
		assert.Equal(t, code, fe.Code)
	}
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

var checks = []struct {
	name string
	run  func(t *testing.T, e *env)
}{
	{"resolve joins the cwd and cleans lexically", func(t *testing.T, e *env) {
		for rel, want := range map[string]string{
			"a/b.txt":               e.path("a/b.txt"),
			"a/../b//c/":            e.path("b/c"),
			".":                     e.cwd,
			"~/x":                   e.path("~/x"),
			e.cwd + "/abs/./x/../y": e.path("abs/y"),
		} {
			tg, err := e.fs.Resolve(context.Background(), rel, fsapi.ResolveOptions{})
			require.NoError(t, err)
			assert.Equal(t, want, tg.DisplayPath, rel)
		}
		tg, err := e.fs.Resolve(context.Background(), "x", fsapi.ResolveOptions{Cwd: e.path("elsewhere")})
		require.NoError(t, err)
		assert.Equal(t, e.path("elsewhere/x"), tg.DisplayPath, "the call's cwd wins")
	}},
	{"resolve gives two spellings of one file the same key", func(t *testing.T, e *env) {
		e.create("d/f.txt", "x")
		assert.Equal(t, e.target("d/f.txt").Key, e.target("d/../d/./f.txt").Key)
		assert.NotEmpty(t, e.target("d/new.txt").Key, "a missing file has a key")
	}},
	{"resolve refuses a blank path and a cancelled context", func(t *testing.T, e *env) {
		_, err := e.fs.Resolve(context.Background(), " \t", fsapi.ResolveOptions{})
		coded(t, err, fsapi.CodeNotFound, "file_path must be a non-empty string", "")
		_, err = e.fs.Resolve(cancelled(), "x", fsapi.ResolveOptions{})
		coded(t, err, fsapi.CodeAborted, "resolve aborted", "")
	}},
	{"stat reports absent, files and directories", func(t *testing.T, e *env) {
		info, err := e.fs.Stat(context.Background(), e.target("missing"))
		require.NoError(t, err)
		assert.Nil(t, info)
		tg, v := e.create("d/f.txt", "hello")
		info, err = e.fs.Stat(context.Background(), tg)
		require.NoError(t, err)
		require.NotNil(t, info)
		assert.Equal(t, fsapi.TypeFile, info.Type)
		assert.Equal(t, v, info.Version, "the write's version is the stat's")
		if info.HasSize {
			assert.Equal(t, int64(5), info.Size)
		}
		info, err = e.fs.Stat(context.Background(), e.target("d"))
		require.NoError(t, err)
		assert.Equal(t, fsapi.TypeDirectory, info.Type)
		_, err = e.fs.Stat(cancelled(), tg)
		coded(t, err, fsapi.CodeAborted, "stat aborted", "")
	}},
	{"read returns the text with one BOM removed", func(t *testing.T, e *env) {
		tg, _ := e.create("f.txt", "\uFEFF\uFEFFa\r\nb")
		assert.Equal(t, "\uFEFFa\r\nb", e.read(tg))
	}},
	{"read refuses what is not text", func(t *testing.T, e *env) {
		tests := map[string]struct {
			content, msg string
			code         fsapi.Code
		}{
			"bin":  {"ab\x00", `cannot read "%s": binary file`, fsapi.CodeNotText},
			"utf8": {"ab\xff", `cannot read "%s": invalid UTF-8 text`, fsapi.CodeNotText},
			"late": {strings.Repeat("a", 8192) + "\x00", "", ""},
		}
		for name, tc := range tests {
			tg, _ := e.create(name, tc.content)
			text, err := e.fs.ReadText(context.Background(), tg)
			if tc.msg == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.content, text, "a NUL after byte 8192 passes through")
				continue
			}
			coded(t, err, tc.code, tc.msg, tg.DisplayPath)
		}
		_, err := e.fs.ReadText(context.Background(), e.target("missing"))
		coded(t, err, fsapi.CodeNotFound, `cannot read "%s": not found`, e.path("missing"))
		e.create("d/x", "")
		_, err = e.fs.ReadText(context.Background(), e.target("d"))
		coded(t, err, fsapi.CodeNotRegularFile, `cannot read "%s": not a regular file`, e.path("d"))
		_, err = e.fs.ReadText(cancelled(), e.target("d/x"))
		coded(t, err, fsapi.CodeAborted, "read aborted", "")
	}},
	{"a stream concatenates to the read", func(t *testing.T, e *env) {
		text := strings.Repeat("héllo wörld 😀\r\n", 20_000)
		tg, _ := e.create("big.txt", "\uFEFF"+text)
		seq, err := fsapi.Stream(context.Background(), e.fs, tg)
		require.NoError(t, err)
		var b strings.Builder
		for chunk, err := range seq {
			require.NoError(t, err)
			b.WriteString(chunk)
		}
		assert.Equal(t, text, b.String())
		assert.Equal(t, e.read(tg), b.String())
	}},
	{"a byte scan concatenates to the read", func(t *testing.T, e *env) {
		text := strings.Repeat("héllo wörld 😀\r\n", 20_000)
		tg, _ := e.create("big.txt", "\uFEFF"+text)
		seq, err := fsapi.ScanBytes(context.Background(), e.fs, tg)
		require.NoError(t, err)
		var b strings.Builder
		for chunk, err := range seq {
			require.NoError(t, err)
			b.Write(chunk) // copied before the next step, as ScanBytes asks
		}
		assert.Equal(t, text, b.String())
		_, err = fsapi.ScanBytes(context.Background(), e.fs, e.target("missing"))
		coded(t, err, fsapi.CodeNotFound, `cannot read "%s": not found`, e.path("missing"))
	}},
	{"list returns the children in collation order", func(t *testing.T, e *env) {
		for _, n := range []string{"b.txt", "A.txt", "a.txt", "_z"} {
			e.create("d/"+n, n)
		}
		e.create("d/sub/x", "")
		entries, err := e.fs.ListDir(context.Background(), e.target("d"))
		require.NoError(t, err)
		var names []string
		for _, en := range entries {
			names = append(names, en.Name)
			assert.Equal(t, e.path("d/"+en.Name), en.Target.DisplayPath)
			if en.Name == "sub" {
				assert.Equal(t, fsapi.TypeDirectory, en.Type)
				assert.False(t, en.HasSize, "only files have a size")
				continue
			}
			assert.Equal(t, fsapi.TypeFile, en.Type)
			assert.True(t, en.HasSize)
			assert.Equal(t, int64(len(en.Name)), en.Size)
			assert.Equal(t, e.target("d/"+en.Name).Key, en.Target.Key)
		}
		assert.Equal(t, []string{"_z", "a.txt", "A.txt", "b.txt", "sub"}, names)
	}},
	{"list refuses missing targets and files", func(t *testing.T, e *env) {
		_, err := e.fs.ListDir(context.Background(), e.target("missing"))
		coded(t, err, fsapi.CodeNotFound, `cannot list "%s": not found`, e.path("missing"))
		tg, _ := e.create("f", "")
		_, err = e.fs.ListDir(context.Background(), tg)
		coded(t, err, fsapi.CodeNotDirectory, `cannot list "%s": not a directory`, tg.DisplayPath)
		_, err = e.fs.ListDir(cancelled(), e.target("."))
		coded(t, err, fsapi.CodeAborted, "list aborted", "")
	}},
	{"write applies its intent after the type check", func(t *testing.T, e *env) {
		ctx := context.Background()
		e.create("d/x", "")
		_, err := e.fs.WriteText(ctx, e.target("d"), "x", &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent})
		coded(t, err, fsapi.CodeNotRegularFile, `cannot write "%s": not a regular file`, e.path("d"))
		_, err = e.fs.WriteText(ctx, e.target("gone"), "x", &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: "v"})
		coded(t, err, fsapi.CodeStaleVersion, `cannot write "%s": file no longer exists`, e.path("gone"))
		info, err := e.fs.Stat(ctx, e.target("gone"))
		require.NoError(t, err)
		assert.Nil(t, info, "not recreated")
		tg, v := e.create("f.txt", "one")
		_, err = e.fs.WriteText(ctx, tg, "x", &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: v + "-other"})
		coded(t, err, fsapi.CodeStaleVersion, `cannot write "%s": file changed since it was read`, tg.DisplayPath)
		_, err = e.fs.WriteText(ctx, tg, "x", &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent})
		coded(t, err, fsapi.CodeNotObserved, `cannot overwrite existing "%s" without reading it first`, tg.DisplayPath)
		_, err = e.fs.WriteText(cancelled(), tg, "x", nil)
		coded(t, err, fsapi.CodeAborted, "write aborted", "")
		assert.Equal(t, "one", e.read(tg), "no refused write changed the file")
		out, err := e.fs.WriteText(ctx, tg, "two\r\n", &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: v})
		require.NoError(t, err)
		assert.Equal(t, fsapi.OperationUpdate, out.Operation)
		require.NotNil(t, out.Before)
		assert.Equal(t, "one", *out.Before)
		assert.Equal(t, "two\n", out.After)
		assert.NotEqual(t, v, out.Version)
	}},
	{"an overwrite keeps the BOM and the dominant CRLF", func(t *testing.T, e *env) {
		tg, _ := e.create("f.txt", "\uFEFFa\r\nb\r\n")
		out, err := e.fs.WriteText(context.Background(), tg, "x\ny\n", nil)
		require.NoError(t, err)
		require.NotNil(t, out.Before)
		assert.Equal(t, "a\nb\n", *out.Before)
		assert.Equal(t, "x\r\ny\r\n", e.read(tg), "the read strips the kept BOM")
		edit, err := e.fs.EditText(context.Background(), tg, fsapi.EditRequest{OldString: "x", NewString: "1\n2"}, nil)
		require.NoError(t, err)
		assert.Equal(t, "1\r\n2\r\ny\r\n", e.read(tg))
		assert.Equal(t, "x\ny\n", edit.Before)
		assert.Equal(t, "1\n2\ny\n", edit.After)
	}},
	{"edit checks in contract order", func(t *testing.T, e *env) {
		ctx := context.Background()
		stale := &fsapi.EditGuard{Version: "stale"}
		_, err := e.fs.EditText(ctx, e.target("missing"), fsapi.EditRequest{OldString: "a"}, nil)
		coded(t, err, fsapi.CodeStaleVersion, `cannot edit "%s": file changed since it was read`, e.path("missing"))
		e.create("d/x", "")
		_, err = e.fs.EditText(ctx, e.target("d"), fsapi.EditRequest{OldString: "a"}, stale)
		coded(t, err, fsapi.CodeNotRegularFile, `cannot edit "%s": not a regular file`, e.path("d"))
		tg, v := e.create("f.txt", "aaaa b")
		_, err = e.fs.EditText(ctx, tg, fsapi.EditRequest{OldString: "zzz"}, stale)
		coded(t, err, fsapi.CodeStaleVersion, `cannot edit "%s": file changed since it was read`, tg.DisplayPath)
		guard := &fsapi.EditGuard{Version: v}
		_, err = e.fs.EditText(ctx, tg, fsapi.EditRequest{OldString: ""}, guard)
		coded(t, err, fsapi.CodeEditNotFound, "old_string must be a non-empty string", "")
		_, err = e.fs.EditText(ctx, tg, fsapi.EditRequest{OldString: "zzz"}, guard)
		coded(t, err, fsapi.CodeEditNotFound, `old_string was not found in "%s"`, tg.DisplayPath)
		_, err = e.fs.EditText(ctx, tg, fsapi.EditRequest{OldString: "aa"}, guard)
		coded(t, err, fsapi.CodeAmbiguousEdit, `old_string matched 3 times in "%s"; provide a more specific old_string or set replace_all to true`, tg.DisplayPath)
		_, err = e.fs.EditText(cancelled(), tg, fsapi.EditRequest{OldString: "b"}, guard)
		coded(t, err, fsapi.CodeAborted, "edit aborted", "")
		bin, _ := e.create("bin", "a\x00")
		_, err = e.fs.EditText(ctx, bin, fsapi.EditRequest{OldString: "a"}, nil)
		coded(t, err, fsapi.CodeNotText, `cannot edit "%s": binary file`, bin.DisplayPath)
		assert.Equal(t, "aaaa b", e.read(tg), "no refused edit changed the file")
		out, err := e.fs.EditText(ctx, tg, fsapi.EditRequest{OldString: "aa", NewString: "$&", ReplaceAll: true}, guard)
		require.NoError(t, err)
		assert.Equal(t, "$&$& b", e.read(tg), "replacement is literal, matches do not overlap")
		assert.NotEqual(t, v, out.Version)
	}},
	{"guarded writes racing on one version have one winner", func(t *testing.T, e *env) {
		tg, v := e.create("f.txt", "start")
		var wg sync.WaitGroup
		errs := make([]error, 10)
		for i := range errs {
			wg.Go(func() {
				_, errs[i] = e.fs.WriteText(context.Background(), tg, fmt.Sprint(i), &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: v})
			})
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
				continue
			}
			coded(t, err, fsapi.CodeStaleVersion, `cannot write "%s": file changed since it was read`, tg.DisplayPath)
		}
		assert.Equal(t, 1, wins)
	}},
}
