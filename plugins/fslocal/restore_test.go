package fslocal_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host/hosttest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// version returns the current version of rel, as the checkpoint plugin
// records it.
func (w *workspace) version(rel string) fsapi.Version {
	w.t.Helper()
	info, err := w.p.Stat(context.Background(), w.target(rel))
	require.NoError(w.t, err)
	return info.Version
}

// TestRestoreBytesIsVerbatim: the bytes restored are exactly data, over a
// file whose BOM and CRLF dominance WriteText would carry over, and for a
// new file; the returned version is the file's.
func TestRestoreBytesIsVerbatim(t *testing.T) {
	tests := []struct {
		name  string
		prior *string // nil: no file (restored with Absent)
		data  string
	}{
		{"a BOM and CRLF are restored as they are", strp("old\n"), "\xEF\xBB\xBFa\r\nb\r\n"},
		{"a BOM file loses its BOM when data has none", strp("\xEF\xBB\xBFold\r\n"), "new"},
		{"bare LFs over a CRLF-dominant file stay LF", strp("a\r\nb\r\nc\r\n"), "x\ny\n"},
		{"NUL and invalid UTF-8 bytes are restored", strp("text\n"), "\x00\x01\xff\xfe\r\x00\n"},
		{"empty data empties the file", strp("old"), ""},
		{"a new file gets data verbatim", nil, "\xEF\xBB\xBF\x00bin\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			expect := fsapi.RestoreExpect{Absent: true}
			if tc.prior != nil {
				w.file("f.bin", *tc.prior, 0o640)
				expect = fsapi.RestoreExpect{Version: w.version("f.bin")}
			}
			v, err := w.p.RestoreBytes(context.Background(), w.target("f.bin"), []byte(tc.data), expect)
			require.NoError(t, err)
			assert.Equal(t, tc.data, w.content("f.bin"))
			assert.Equal(t, w.version("f.bin"), v)
			if tc.prior != nil {
				assert.Equal(t, os.FileMode(0o640), mode(t, w.path("f.bin")), "the permission bits are kept")
			}
			assert.Empty(t, w.stagingFiles("."))
			assert.Zero(t, w.p.LockCount())
		})
	}
}

// TestRestoreBytesCreatesWhenAbsent: with Absent, a missing file is created
// 0666 minus the umask, with its missing parents 0777 minus it.
func TestRestoreBytesCreatesWhenAbsent(t *testing.T) {
	w := newWorkspace(t)
	v, err := w.p.RestoreBytes(context.Background(), w.target("x/y/new.txt"), []byte("hi\r\n"), fsapi.RestoreExpect{Absent: true})
	require.NoError(t, err)
	assert.Equal(t, "hi\r\n", w.content("x/y/new.txt"))
	assert.Equal(t, w.version("x/y/new.txt"), v)
	assert.Equal(t, os.FileMode(0o644), mode(t, w.path("x/y/new.txt")))
	assert.Equal(t, os.FileMode(0o755)|os.ModeDir, mode(t, w.path("x")))
	assert.Equal(t, os.FileMode(0o755)|os.ModeDir, mode(t, w.path("x/y")))
	assert.Zero(t, w.p.LockCount())
}

// TestRestoreBytesGivesTheModeAsked: with Mode, a new file, a replaced
// one and one rewritten in place (hardLinks preserve) get exactly those
// permission bits, whatever the umask and the old file's.
func TestRestoreBytesGivesTheModeAsked(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	_, err := w.p.RestoreBytes(ctx, w.target("key.txt"), []byte("secret"), fsapi.RestoreExpect{Absent: true, Mode: 0o600})
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), mode(t, w.path("key.txt")))

	w.file("x.sh", "old", 0o644)
	_, err = w.p.RestoreBytes(ctx, w.target("x.sh"), []byte("#!/bin/sh\n"), fsapi.RestoreExpect{Version: w.version("x.sh"), Mode: 0o755})
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), mode(t, w.path("x.sh")))

	p := newWorkspace(t)
	p.file("a.txt", "old", 0o644)
	require.NoError(t, os.Link(p.path("a.txt"), p.path("b.txt")))
	_, err = p.p.RestoreBytes(ctx, p.target("a.txt"), []byte("new"), fsapi.RestoreExpect{Version: p.version("a.txt"), Mode: 0o640})
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), mode(t, p.path("b.txt")), "in place, every link")
	assert.Equal(t, "new", p.content("b.txt"))
}

// TestRestoreBytesRefusals: each refusal leaves the target as it was
// (absent stays absent) and no lock or staging file behind.
func TestRestoreBytesRefusals(t *testing.T) {
	stale := `cannot restore "%s": file changed since it was read`
	tests := []struct {
		name   string
		setup  func(w *workspace) fsapi.Target
		ctx    context.Context
		expect func(w *workspace) fsapi.RestoreExpect
		msg    string // %s is the display path
		code   fsapi.Code
	}{
		{
			name:   "a cancelled context aborts before anything else",
			setup:  func(w *workspace) fsapi.Target { w.file("f.txt", "old", 0o644); return w.target("f.txt") },
			ctx:    cancelled(),
			expect: func(w *workspace) fsapi.RestoreExpect { return fsapi.RestoreExpect{Version: w.version("f.txt")} },
			msg:    "restore aborted", code: fsapi.CodeAborted,
		},
		{
			name:   "Absent with an existing file is stale",
			setup:  func(w *workspace) fsapi.Target { w.file("f.txt", "old", 0o644); return w.target("f.txt") },
			expect: func(*workspace) fsapi.RestoreExpect { return fsapi.RestoreExpect{Absent: true} },
			msg:    stale, code: fsapi.CodeStaleVersion,
		},
		{
			name:   "another version without a digest is stale",
			setup:  func(w *workspace) fsapi.Target { w.file("f.txt", "old", 0o644); return w.target("f.txt") },
			expect: func(*workspace) fsapi.RestoreExpect { return fsapi.RestoreExpect{Version: "1:2:3:4:5"} },
			msg:    stale, code: fsapi.CodeStaleVersion,
		},
		{
			name:  "another version with the digest of other bytes is stale",
			setup: func(w *workspace) fsapi.Target { w.file("f.txt", "old", 0o644); return w.target("f.txt") },
			expect: func(*workspace) fsapi.RestoreExpect {
				return fsapi.RestoreExpect{Version: "1:2:3:4:5", Digest: fsapi.DigestOf("odd")}
			},
			msg: stale, code: fsapi.CodeStaleVersion,
		},
		{
			name:   "an absent target with a version expectation is stale and not created",
			setup:  func(w *workspace) fsapi.Target { return w.target("gone.txt") },
			expect: func(*workspace) fsapi.RestoreExpect { return fsapi.RestoreExpect{Version: "1:2:3:4:5"} },
			msg:    stale, code: fsapi.CodeStaleVersion,
		},
		{
			name:   "a directory is not a regular file",
			setup:  func(w *workspace) fsapi.Target { w.mkdir("d"); return w.target("d") },
			expect: func(*workspace) fsapi.RestoreExpect { return fsapi.RestoreExpect{Version: "1:2:3:4:5"} },
			msg:    `cannot restore "%s": not a regular file`, code: fsapi.CodeNotRegularFile,
		},
		{
			name:   "a directory is not a regular file, before Absent is checked",
			setup:  func(w *workspace) fsapi.Target { w.mkdir("d"); return w.target("d") },
			expect: func(*workspace) fsapi.RestoreExpect { return fsapi.RestoreExpect{Absent: true} },
			msg:    `cannot restore "%s": not a regular file`, code: fsapi.CodeNotRegularFile,
		},
		{
			name:   "a FIFO is refused without being opened",
			setup:  func(w *workspace) fsapi.Target { w.fifo("p"); return w.target("p") },
			expect: func(*workspace) fsapi.RestoreExpect { return fsapi.RestoreExpect{} },
			msg:    `cannot restore "%s": not a regular file`, code: fsapi.CodeNotRegularFile,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			tg := tc.setup(w)
			before, beforeErr := readRegular(tg.Key)
			expect := tc.expect(w)
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			_, err := w.p.RestoreBytes(ctx, tg, []byte("new"), expect)
			assertFailure(t, err, tc.code, replaceP(tc.msg, tg.DisplayPath))
			after, afterErr := readRegular(tg.Key)
			if beforeErr != nil {
				assert.ErrorIs(t, afterErr, os.ErrNotExist, "nothing created")
			} else {
				assert.Equal(t, before, after, "nothing changed")
			}
			assert.Empty(t, w.stagingFiles("."))
			assert.Zero(t, w.p.LockCount())
		})
	}
}

// TestRestoreBytesFreshByContent ([D24]): a file touched since its version
// was recorded still holds the bytes the digest names, so the restore
// lands; a digest alone does not let an absent file be recreated.
func TestRestoreBytesFreshByContent(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.file("f.txt", "after the edit\n", 0o644)
	v := w.version("f.txt")
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(w.path("f.txt"), later, later))
	require.NotEqual(t, v, w.version("f.txt"), "the touch changed the version")

	_, err := w.p.RestoreBytes(ctx, w.target("f.txt"), []byte("before\n"), fsapi.RestoreExpect{Version: v})
	assertFailure(t, err, fsapi.CodeStaleVersion, `cannot restore "`+w.path("f.txt")+`": file changed since it was read`)
	assert.Equal(t, "after the edit\n", w.content("f.txt"))

	got, err := w.p.RestoreBytes(ctx, w.target("f.txt"), []byte("before\n"), fsapi.RestoreExpect{Version: v, Digest: fsapi.DigestOf("after the edit\n")})
	require.NoError(t, err)
	assert.Equal(t, "before\n", w.content("f.txt"))
	assert.Equal(t, w.version("f.txt"), got)

	require.NoError(t, os.Remove(w.path("f.txt")))
	_, err = w.p.RestoreBytes(ctx, w.target("f.txt"), []byte("x"), fsapi.RestoreExpect{Version: got, Digest: fsapi.DigestOf("before\n")})
	assertFailure(t, err, fsapi.CodeStaleVersion, `cannot restore "`+w.path("f.txt")+`": file changed since it was read`)
	assert.NoFileExists(t, w.path("f.txt"))
}

// TestRestoreBytesAbortLeavesTheFile: a cancellation at any of the
// restore's context checks before the commit point is FS_ABORTED `restore
// aborted` and leaves the file (or its absence) as it was.
func TestRestoreBytesAbortLeavesTheFile(t *testing.T) {
	for _, prior := range []string{"", "old content"} {
		w := newWorkspace(t)
		expect := fsapi.RestoreExpect{Absent: true}
		if prior != "" {
			w.file("f.txt", prior, 0o644)
			expect = fsapi.RestoreExpect{Version: w.version("f.txt")}
		}
		tg := w.target("f.txt")
		aborted := 0
		for n := 0; ; n++ {
			_, err := w.p.RestoreBytes(newCountdown(n), tg, []byte("new"), expect)
			if err == nil {
				break
			}
			aborted++
			assertFailure(t, err, fsapi.CodeAborted, "restore aborted")
			if prior == "" {
				assert.NoFileExists(t, w.path("f.txt"))
			} else {
				assert.Equal(t, prior, w.content("f.txt"))
			}
			assert.Empty(t, w.stagingFiles("."), "abort at check %d", n)
			assert.Zero(t, w.p.LockCount())
			require.Less(t, n, 20, "the restore never succeeded")
		}
		assert.GreaterOrEqual(t, aborted, 4, "entry, commit, mkdir and rename checks")
		assert.Equal(t, "new", w.content("f.txt"))
	}
}

// TestRestoreBytesCreateNeverClobbers: a file that appears at the key
// after an Absent restore checked it is kept, and the restore is stale.
func TestRestoreBytesCreateNeverClobbers(t *testing.T) {
	w := newWorkspace(t)
	tg := w.target("f.txt")
	counter := newCountdown(1 << 30)
	_, err := w.p.RestoreBytes(counter, w.target("probe.txt"), []byte("x"), fsapi.RestoreExpect{Absent: true})
	require.NoError(t, err)

	gate := newGate(counter.calls) // the last check, right before the publish
	done := make(chan error, 1)
	go func() {
		_, err := w.p.RestoreBytes(gate, tg, []byte("restored"), fsapi.RestoreExpect{Absent: true})
		done <- err
	}()
	<-gate.reached
	w.file("f.txt", "appeared meanwhile", 0o644)
	close(gate.open)
	assertFailure(t, <-done, fsapi.CodeStaleVersion, `cannot restore "`+tg.DisplayPath+`": file changed since it was read`)
	assert.Equal(t, "appeared meanwhile", w.content("f.txt"))
	assert.Empty(t, w.stagingFiles("."))
	assert.Zero(t, w.p.LockCount())
}

// TestRestoreBytesLinks: through a symlink the real file is restored and
// the link survives; a dangling link counts as absent; a file with several
// hard links is rewritten in place under "preserve", as WriteText does.
func TestRestoreBytesLinks(t *testing.T) {
	ctx := context.Background()
	t.Run("a restore through a symlink writes the real file and the link survives", func(t *testing.T) {
		w := newWorkspace(t, confined)
		w.file("real.txt", "old", 0o600)
		w.symlink("link.txt", "real.txt")
		tg := w.target("link.txt")
		require.Equal(t, w.path("real.txt"), tg.Key)
		v, err := w.p.RestoreBytes(ctx, tg, []byte("new\r\n"), fsapi.RestoreExpect{Version: w.version("link.txt")})
		require.NoError(t, err)
		assert.Equal(t, "new\r\n", w.content("real.txt"))
		assert.Equal(t, w.version("real.txt"), v)
		assert.Equal(t, os.FileMode(0o600), mode(t, w.path("real.txt")))
		text, err := os.Readlink(w.path("link.txt"))
		require.NoError(t, err, "still a link")
		assert.Equal(t, "real.txt", text)
	})
	t.Run("a dangling symlink is absent and replaced by a regular file", func(t *testing.T) {
		w := newWorkspace(t)
		w.symlink("dangling", "nowhere.txt")
		_, err := w.p.RestoreBytes(ctx, w.target("dangling"), []byte("x"), fsapi.RestoreExpect{Version: "1:2:3:4:5"})
		assertCode(t, fsapi.CodeStaleVersion, err)
		_, err = w.p.RestoreBytes(ctx, w.target("dangling"), []byte("x"), fsapi.RestoreExpect{Absent: true})
		require.NoError(t, err)
		fi, err := os.Lstat(w.path("dangling"))
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular())
		assert.NoFileExists(t, w.path("nowhere.txt"))
	})
	t.Run("hardLinks preserve rewrites in place so every link sees the bytes", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("a.txt", "old", 0o640)
		require.NoError(t, os.Link(w.path("a.txt"), w.path("b.txt")))
		ino := statT(t, w.path("a.txt")).Ino
		_, err := w.p.RestoreBytes(ctx, w.target("a.txt"), []byte("\x00new"), fsapi.RestoreExpect{Version: w.version("a.txt")})
		require.NoError(t, err)
		assert.Equal(t, "\x00new", w.content("b.txt"))
		assert.Equal(t, ino, statT(t, w.path("a.txt")).Ino)
		assert.Equal(t, os.FileMode(0o640), mode(t, w.path("a.txt")))
	})
}

// TestRestoreBytesRefusesProtectedFiles: a restore of a protected file, or
// of a hard link to it, is FS_PROTECTED and changes nothing.
func TestRestoreBytesRefusesProtectedFiles(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.file("dsh.yaml", "plugins: []\n", 0o644)
	require.NoError(t, os.Link(w.path("dsh.yaml"), w.path("alias.yaml")))

	h := hosttest.New(t)
	set := fsapi.NewProtected()
	set.Add(fsapi.ProtectConfig, w.path("dsh.yaml"))
	_, err := fsapi.ProtectedKey.Provide(h.Root(), set)
	require.NoError(t, err)
	inst, err := h.Plugin(ctx, fslocal.Plugin, fslocal.Config{Cwd: w.dir, Root: w.dir})
	require.NoError(t, err)
	require.NoError(t, inst.Wait(ctx))
	p := fsapi.Key.Must(inst.Scope()).(*fslocal.Provider)

	for _, name := range []string{"dsh.yaml", "alias.yaml"} {
		tg, err := p.Resolve(ctx, name, fsapi.ResolveOptions{})
		require.NoError(t, err)
		info, err := p.Stat(ctx, tg)
		require.NoError(t, err)
		_, err = p.RestoreBytes(ctx, tg, []byte("plugins: [exec]\n"), fsapi.RestoreExpect{Version: info.Version})
		assertCode(t, fsapi.CodeProtected, err)
		assert.Contains(t, err.Error(), `cannot restore "`+tg.DisplayPath+`"`)
	}
	assert.Equal(t, "plugins: []\n", w.content("dsh.yaml"))
	assert.Zero(t, p.LockCount())
}
