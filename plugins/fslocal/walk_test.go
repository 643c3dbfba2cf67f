package fslocal_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// visit is one recorded walk visit.
type visit struct {
	Path   string
	Type   fsapi.EntryType
	Opened bool
}

// walkAll walks rel with opts and records every visit.
func walkAll(t *testing.T, w *workspace, rel string, opts fsapi.WalkOptions) ([]visit, []fsapi.WalkEntry, error) {
	t.Helper()
	var vs []visit
	var es []fsapi.WalkEntry
	err := w.p.Walk(context.Background(), w.target(rel), opts, func(e fsapi.WalkEntry) error {
		vs = append(vs, visit{e.Path, e.Type, e.Opened})
		es = append(es, e)
		return nil
	})
	return vs, es, err
}

func TestWalkVisitsInPathOrderWithTwoVisitsPerDirectory(t *testing.T) {
	for name, edit := range map[string][]func(*fslocal.Config){"unconfined": nil, "confined": {confined}} {
		t.Run(name, func(t *testing.T) {
			w := newWorkspace(t, edit...)
			w.file("b.txt", "b", 0o644)
			w.file("a b", "x", 0o644)
			w.file("a-c", "x", 0o644)
			w.file("a/b", "x", 0o644)
			w.file("B.txt", "x", 0o644)
			w.file("_x", "x", 0o644)
			w.symlink("link", "a")
			w.fifo("pipe")
			vs, es, err := walkAll(t, w, ".", fsapi.WalkOptions{})
			require.NoError(t, err)
			assert.Equal(t, []visit{
				{".", fsapi.TypeDirectory, true},
				{"B.txt", fsapi.TypeFile, false},
				{"_x", fsapi.TypeFile, false},
				{"a", fsapi.TypeDirectory, false},
				{"a", fsapi.TypeDirectory, true},
				{"a/b", fsapi.TypeFile, false},
				{"a b", fsapi.TypeFile, false},
				{"a-c", fsapi.TypeFile, false},
				{"b.txt", fsapi.TypeFile, false},
				{"link", fsapi.TypeSymlink, false},
				{"pipe", fsapi.TypeOther, false},
			}, vs, "search.md §4.2 path order; the link is reported, not followed")
			assert.Equal(t, w.dir+"/a/b", es[5].Target.DisplayPath)
			assert.Equal(t, "b", es[5].Name)
			assert.Zero(t, es[1].Size, "no file info unless asked")
		})
	}
}

func TestWalkFileInfoAndDirFiles(t *testing.T) {
	w := newWorkspace(t, confined)
	w.file("f.txt", "12345", 0o644)
	when := time.Unix(1000, 500)
	require.NoError(t, os.Chtimes(w.path("f.txt"), when, when))
	w.file(".gitignore", "*.log\n", 0o644)
	w.file(".ignore", "0123456789", 0o644) // larger than MaxFileBytes
	w.file("sub/.gitignore", "x\n", 0o644)
	w.symlink("other/.gitignore", "../.gitignore") // a symlinked ignore file is not read
	w.mkdir("other/.ignore")                       // nor a directory of that name
	_, es, err := walkAll(t, w, ".", fsapi.WalkOptions{DirFiles: []string{".ignore", ".gitignore"}, MaxFileBytes: 8, FileInfo: true})
	require.NoError(t, err)
	byPath := map[string]fsapi.WalkEntry{}
	for _, e := range es {
		if e.Opened || e.Type != fsapi.TypeDirectory {
			byPath[e.Path] = e
		}
	}
	assert.Equal(t, map[string][]byte{".gitignore": []byte("*.log\n")}, byPath["."].Files)
	assert.Equal(t, map[string][]byte{".gitignore": []byte("x\n")}, byPath["sub"].Files)
	assert.Empty(t, byPath["other"].Files)
	assert.Equal(t, int64(5), byPath["f.txt"].Size)
	assert.True(t, when.Equal(byPath["f.txt"].ModTime), "mtime to the nanosecond")
}

func TestWalkSkipDirAndSkipAll(t *testing.T) {
	w := newWorkspace(t)
	w.file("a/x", "x", 0o644)
	w.file("b/y", "y", 0o644)
	w.file("c", "c", 0o644)
	var seen []string
	err := w.p.Walk(context.Background(), w.target("."), fsapi.WalkOptions{}, func(e fsapi.WalkEntry) error {
		seen = append(seen, e.Path+":"+strconv.FormatBool(e.Opened))
		switch {
		case e.Path == "a" && !e.Opened:
			return fsapi.SkipDir // never opened: no second visit
		case e.Path == "b" && e.Opened:
			return fsapi.SkipDir // read, but its children are skipped
		case e.Path == "c":
			return fsapi.SkipAll
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{".:true", "a:false", "b:false", "b:true", "c:false"}, seen)

	boom := errors.New("boom")
	err = w.p.Walk(context.Background(), w.target("."), fsapi.WalkOptions{}, func(e fsapi.WalkEntry) error {
		if e.Path == "b" {
			return boom
		}
		return nil
	})
	assert.Same(t, boom, err, "any other error ends the walk unchanged")
}

func TestWalkRootErrors(t *testing.T) {
	w := newWorkspace(t, confined)
	w.file("f.txt", "x", 0o644)
	missing := fsapi.Target{Key: w.path("missing"), DisplayPath: w.path("missing")}
	err := w.p.Walk(context.Background(), missing, fsapi.WalkOptions{}, func(fsapi.WalkEntry) error { return nil })
	assert.EqualError(t, err, `cannot search "`+w.path("missing")+`": not found`)
	assertCode(t, fsapi.CodeNotFound, err)

	err = w.p.Walk(context.Background(), w.target("f.txt"), fsapi.WalkOptions{}, func(fsapi.WalkEntry) error { return nil })
	assert.EqualError(t, err, `cannot search "`+w.path("f.txt")+`": not a directory`)
	assertCode(t, fsapi.CodeNotDirectory, err)

	called := false
	err = w.p.Walk(cancelled(), w.target("."), fsapi.WalkOptions{}, func(fsapi.WalkEntry) error { called = true; return nil })
	assert.EqualError(t, err, "walk aborted")
	assertCode(t, fsapi.CodeAborted, err)
	assert.False(t, called)
}

func TestWalkRootSwappedOutsideIsRefused(t *testing.T) {
	j := newJail(t)
	j.mkdir("d")
	tg := j.target("d")
	require.NoError(t, os.Remove(j.path("d")))
	require.NoError(t, os.Symlink(j.out, j.path("d")))
	err := j.p.Walk(context.Background(), tg, fsapi.WalkOptions{}, func(fsapi.WalkEntry) error { return nil })
	assert.EqualError(t, err, outsideMsg(j.path("d")))
	assertCode(t, fsapi.CodeSandboxDenied, err)
}

func TestWalkSymlinkLoopsAndLinksOutsideAreNotFollowed(t *testing.T) {
	j := newJail(t)
	j.symlink("loop", "loop")
	j.symlink("up", "..")
	j.symlink("out", j.out)
	j.symlink("a/self", "../a")
	vs, _, err := walkAll(t, j.workspace, ".", fsapi.WalkOptions{})
	require.NoError(t, err)
	assert.Equal(t, []visit{
		{".", fsapi.TypeDirectory, true},
		{"a", fsapi.TypeDirectory, false},
		{"a", fsapi.TypeDirectory, true},
		{"a/self", fsapi.TypeSymlink, false},
		{"loop", fsapi.TypeSymlink, false},
		{"out", fsapi.TypeSymlink, false},
		{"up", fsapi.TypeSymlink, false},
	}, vs)
}

func TestWalkCancellationStopsPromptly(t *testing.T) {
	w := newWorkspace(t)
	for i := range 50 {
		w.file("d"+strconv.Itoa(i)+"/f", "x", 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := w.p.Walk(ctx, w.target("."), fsapi.WalkOptions{}, func(e fsapi.WalkEntry) error {
		n++
		if n == 5 {
			cancel()
		}
		return nil
	})
	assert.EqualError(t, err, "walk aborted")
	assert.Equal(t, 5, n, "no visit after the cancellation")
}

func TestWalkOfALargeDirectoryReturns(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 200,000 files; CI runs it")
	}
	// A directory this large is slow to build on a disk file system; tmpfs
	// (when present) keeps the test to seconds.
	base := ""
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		base = "/dev/shm"
	}
	dir, err := os.MkdirTemp(base, "fslocal-big-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	p, err := fslocal.New(fslocal.Config{Cwd: dir, Root: dir})
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	const n = 200_000
	for i := range n {
		f, err := os.Create(dir + "/f" + strconv.Itoa(i))
		require.NoError(t, err)
		f.Close()
	}
	root, err := p.Resolve(context.Background(), ".", fsapi.ResolveOptions{})
	require.NoError(t, err)
	count := 0
	last := ""
	err = p.Walk(context.Background(), root, fsapi.WalkOptions{FileInfo: true}, func(e fsapi.WalkEntry) error {
		if e.Path != "." {
			if e.Path <= last {
				t.Fatalf("%q after %q: not in byte order", e.Path, last)
			}
			last = e.Path
			count++
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, n, count)
}

func TestOpenReadsRawBytes(t *testing.T) {
	for name, edit := range map[string][]func(*fslocal.Config){"unconfined": nil, "confined": {confined}} {
		t.Run(name, func(t *testing.T) {
			w := newWorkspace(t, edit...)
			raw := "\xEF\xBB\xBFa\x00b\xFF\r\n"
			w.file("raw.bin", raw, 0o644)
			w.file("real/x.txt", "x", 0o644)
			w.symlink("link.txt", "real/x.txt")
			rc, err := w.p.Open(context.Background(), w.target("raw.bin"))
			require.NoError(t, err)
			got, err := io.ReadAll(rc)
			require.NoError(t, err)
			require.NoError(t, rc.Close())
			assert.Equal(t, raw, string(got), "no BOM removal, no NUL check, no UTF-8 check")

			rc, err = w.p.Open(context.Background(), w.target("link.txt"))
			require.NoError(t, err)
			got, _ = io.ReadAll(rc)
			rc.Close()
			assert.Equal(t, "x", string(got))
		})
	}
}

func TestOpenErrors(t *testing.T) {
	j := newJail(t)
	j.fifo("pipe")
	j.mkdir("dir")
	j.file("f.txt", "x", 0o644)

	done := make(chan error, 1)
	go func() {
		_, err := j.p.Open(context.Background(), j.target("pipe"))
		done <- err
	}()
	select {
	case err := <-done:
		assert.EqualError(t, err, `cannot read "`+j.path("pipe")+`": not a regular file`)
		assertCode(t, fsapi.CodeNotRegularFile, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Open blocked on a FIFO")
	}
	_, err := j.p.Open(context.Background(), j.target("dir"))
	assert.EqualError(t, err, `cannot read "`+j.path("dir")+`": not a regular file`)
	_, err = j.p.Open(context.Background(), j.target("missing"))
	assert.EqualError(t, err, `cannot read "`+j.path("missing")+`": not found`)
	assertCode(t, fsapi.CodeNotFound, err)
	_, err = j.p.Open(cancelled(), j.target("f.txt"))
	assert.EqualError(t, err, "read aborted")

	// A file swapped for a link to outside after Resolve is refused.
	tg := j.target("f.txt")
	require.NoError(t, os.WriteFile(j.outside("secret"), []byte("s"), 0o644))
	require.NoError(t, os.Remove(j.path("f.txt")))
	require.NoError(t, os.Symlink(j.outside("secret"), j.path("f.txt")))
	_, err = j.p.Open(context.Background(), tg)
	assert.EqualError(t, err, outsideMsg(j.path("f.txt")))
	assertCode(t, fsapi.CodeSandboxDenied, err)
}

// TestWalkRefusesADirectorySwappedForASymlink swaps a directory for a link
// to outside the root between its first visit and its reading: the opened
// visit reports FS_IO_ERROR and nothing outside is visited.
func TestWalkRefusesADirectorySwappedForASymlink(t *testing.T) {
	j := newJail(t)
	j.file("d/inside.txt", "x", 0o644)
	require.NoError(t, os.WriteFile(j.outside("secret.txt"), []byte("s"), 0o644))
	var paths []string
	var dirErr error
	err := j.p.Walk(context.Background(), j.target("."), fsapi.WalkOptions{}, func(e fsapi.WalkEntry) error {
		paths = append(paths, e.Path)
		switch {
		case e.Path == "d" && !e.Opened:
			require.NoError(t, os.Rename(j.path("d"), j.path("moved")))
			require.NoError(t, os.Symlink(j.out, j.path("d")))
		case e.Path == "d" && e.Opened:
			dirErr = e.Err
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{".", "d", "d"}, paths, "nothing below the swapped directory")
	require.Error(t, dirErr)
	assert.True(t, strings.HasPrefix(dirErr.Error(), `cannot search "`+j.path("d")+`": `), dirErr.Error())
	assertCode(t, fsapi.CodeIOError, dirErr)
}

// TestWalkSkipsScratchFiles: a staging file left by a killed write and the
// marked copy of an in-place rewrite are never visited, so glob and grep
// skip them as list does (contract §3.7 [D9+]).
func TestWalkSkipsScratchFiles(t *testing.T) {
	w := newWorkspace(t)
	w.file("big.txt", "x", 0o644)
	w.file("d/.big.txt.0b5e3c1e-8f4e-4a3c-9d2b-6f1a2b3c4d5e.dsh-tmp", "x", 0o644)
	w.file(".big.txt.0b5e3c1e-8f4e-4a3c-9d2b-6f1a2b3c4d5e.dsh-rewrite", "x", 0o644)
	w.file(".big.txt.not-a-uuid.dsh-tmp", "x", 0o644)
	vs, _, err := walkAll(t, w, ".", fsapi.WalkOptions{})
	require.NoError(t, err)
	assert.Equal(t, []visit{
		{".", fsapi.TypeDirectory, true},
		{".big.txt.not-a-uuid.dsh-tmp", fsapi.TypeFile, false},
		{"big.txt", fsapi.TypeFile, false},
		{"d", fsapi.TypeDirectory, false},
		{"d", fsapi.TypeDirectory, true},
	}, vs)
}

// countingCtx counts the checks of its Err, and is done from the
// stopAt-th check on when stopAt is set.
type countingCtx struct {
	context.Context
	checks atomic.Int64
	stopAt atomic.Int64
}

func (c *countingCtx) Err() error {
	n := c.checks.Add(1)
	if s := c.stopAt.Load(); s > 0 && n >= s {
		return context.Canceled
	}
	return nil
}

// TestWalkChecksTheContextWhileReadingALargeDirectory: a directory of
// 10,000 names is read in batches with the context checked between them
// (search.md §4.8), not in one unchecked read; a context done during the
// read aborts the walk, never reported as an unreadable directory.
func TestWalkChecksTheContextWhileReadingALargeDirectory(t *testing.T) {
	w := newWorkspace(t)
	require.NoError(t, os.Mkdir(w.path("big"), 0o755))
	for i := range 10_000 {
		require.NoError(t, os.WriteFile(w.path("big/f"+strconv.Itoa(i)), nil, 0o644))
	}
	ctx := &countingCtx{Context: context.Background()}
	var before, after int64
	err := w.p.Walk(ctx, w.target("."), fsapi.WalkOptions{}, func(e fsapi.WalkEntry) error {
		if e.Path == "big" && !e.Opened {
			before = ctx.checks.Load()
		}
		if e.Path == "big" && e.Opened {
			after = ctx.checks.Load()
		}
		return nil
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, after-before, int64(5), "the descent, 3 batches of 4096 and the visit")

	ctx = &countingCtx{Context: context.Background()}
	var visits []visit
	err = w.p.Walk(ctx, w.target("."), fsapi.WalkOptions{}, func(e fsapi.WalkEntry) error {
		visits = append(visits, visit{e.Path, e.Type, e.Opened})
		if e.Path == "big" && !e.Opened {
			ctx.stopAt.Store(ctx.checks.Load() + 3) // during the second batch
		}
		return nil
	})
	assert.EqualError(t, err, "walk aborted")
	assert.Equal(t, []visit{{".", fsapi.TypeDirectory, true}, {"big", fsapi.TypeDirectory, false}}, visits)
}
