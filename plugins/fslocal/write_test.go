package fslocal_test

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestWriteTextCheckOrder(t *testing.T) {
	replace := func(v fsapi.Version) *fsapi.WriteIntent {
		return &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: v}
	}
	create := &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}
	tests := []struct {
		name    string
		setup   func(w *workspace) fsapi.Target
		ctx     context.Context
		intent  func(w *workspace, tg fsapi.Target) *fsapi.WriteIntent
		msg     string // %s is the display path
		code    fsapi.Code
		created bool // whether the path must exist afterwards
	}{
		{
			name:   "a cancelled context aborts before anything else",
			setup:  func(w *workspace) fsapi.Target { w.mkdir("d"); return w.target("d") },
			ctx:    cancelled(),
			intent: func(*workspace, fsapi.Target) *fsapi.WriteIntent { return create },
			msg:    "write aborted", code: fsapi.CodeAborted, created: true,
		},
		{
			name:   "an existing non-file is refused before the intent",
			setup:  func(w *workspace) fsapi.Target { w.mkdir("d"); return w.target("d") },
			intent: func(*workspace, fsapi.Target) *fsapi.WriteIntent { return create },
			msg:    `cannot write "%s": not a regular file`, code: fsapi.CodeNotRegularFile, created: true,
		},
		{
			name:   "a FIFO is refused without being opened",
			setup:  func(w *workspace) fsapi.Target { w.fifo("p"); return w.target("p") },
			intent: func(*workspace, fsapi.Target) *fsapi.WriteIntent { return nil },
			msg:    `cannot write "%s": not a regular file`, code: fsapi.CodeNotRegularFile, created: true,
		},
		{
			name:   "replace-if-version on a missing file does not recreate it",
			setup:  func(w *workspace) fsapi.Target { return w.target("gone.txt") },
			intent: func(*workspace, fsapi.Target) *fsapi.WriteIntent { return replace("1:2:3:4:5") },
			msg:    `cannot write "%s": file no longer exists`, code: fsapi.CodeStaleVersion,
		},
		{
			name:   "replace-if-version with another version is stale",
			setup:  func(w *workspace) fsapi.Target { w.file("f.txt", "old", 0o644); return w.target("f.txt") },
			intent: func(*workspace, fsapi.Target) *fsapi.WriteIntent { return replace("1:2:3:4:5") },
			msg:    `cannot write "%s": file changed since it was read`, code: fsapi.CodeStaleVersion, created: true,
		},
		{
			name:   "create-if-absent on an existing file needs a read",
			setup:  func(w *workspace) fsapi.Target { w.file("f.txt", "old", 0o644); return w.target("f.txt") },
			intent: func(*workspace, fsapi.Target) *fsapi.WriteIntent { return create },
			msg:    `cannot overwrite existing "%s" without reading it first`, code: fsapi.CodeNotObserved, created: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			tg := tc.setup(w)
			before, _ := readRegular(tg.Key)
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			_, err := w.p.WriteText(ctx, tg, "new", tc.intent(w, tg))
			assert.EqualError(t, err, replaceP(tc.msg, tg.DisplayPath))
			assertCode(t, tc.code, err)
			after, statErr := readRegular(tg.Key)
			if tc.created {
				assert.Equal(t, before, after, "nothing changed")
			} else {
				assert.ErrorIs(t, statErr, os.ErrNotExist, "nothing created")
			}
			assert.Empty(t, w.stagingFiles("."))
			assert.Zero(t, w.p.LockCount())
		})
	}
}

func TestWriteTextIntentsThatPass(t *testing.T) {
	w := newWorkspace(t)
	ctx := context.Background()
	tg := w.target("f.txt")

	out, err := w.p.WriteText(ctx, tg, "one", &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent})
	require.NoError(t, err, "create-if-absent creates a missing file")
	assert.Equal(t, fsapi.OperationCreate, out.Operation)

	out, err = w.p.WriteText(ctx, tg, "two", &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: out.Version})
	require.NoError(t, err, "replace-if-version with the current version replaces")
	assert.Equal(t, fsapi.OperationUpdate, out.Operation)

	out, err = w.p.WriteText(ctx, tg, "three", nil)
	require.NoError(t, err, "no intent overwrites unconditionally")
	assert.Equal(t, "three", w.content("f.txt"))

	_, err = w.p.WriteText(ctx, tg, "four", &fsapi.WriteIntent{Kind: 99})
	assert.EqualError(t, err, "fslocal: unknown write intent kind 99")
	assert.Equal(t, "three", w.content("f.txt"))
	assert.Zero(t, w.p.LockCount())
}

func TestWriteTextOutcome(t *testing.T) {
	ptr := func(s string) *string { return &s }
	tests := []struct {
		name    string
		prior   *string // nil: no file
		content string
		op      fsapi.Operation
		before  *string
		after   string
	}{
		{"a create has no before", nil, "a\r\nb", fsapi.OperationCreate, nil, "a\nb"},
		{"an update shows the prior text without BOM and CRLF", ptr("\xEF\xBB\xBFx\r\ny"), "z", fsapi.OperationUpdate, ptr("x\ny"), "z"},
		{"a prior file with a NUL anywhere has no before", ptr("text\x00more"), "z", fsapi.OperationUpdate, nil, "z"},
		{"a prior file with invalid UTF-8 has no before", ptr("bad\xff"), "z", fsapi.OperationUpdate, nil, "z"},
		{"an empty prior file has an empty before", ptr(""), "z", fsapi.OperationUpdate, ptr(""), "z"},
		{"after keeps a U+FEFF the content brings", nil, "\uFEFFx\r\n", fsapi.OperationCreate, nil, "\uFEFFx\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			if tc.prior != nil {
				w.file("f.txt", *tc.prior, 0o644)
			}
			tg := w.target("f.txt")
			out, err := w.p.WriteText(context.Background(), tg, tc.content, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.op, out.Operation)
			assert.Equal(t, tc.before, out.Before)
			assert.Equal(t, tc.after, out.After)
			info, err := w.p.Stat(context.Background(), tg)
			require.NoError(t, err)
			assert.Equal(t, info.Version, out.Version)
		})
	}
}

func TestWriteTextBytes(t *testing.T) {
	tests := []struct {
		name    string
		prior   *string
		content string
		want    string
	}{
		{"a new file gets the content verbatim", nil, "a\r\nb\n\uFEFF", "a\r\nb\n\uFEFF"},
		{"an LF file gets the content verbatim", strp("x\ny\n"), "a\r\nb\n", "a\r\nb\n"},
		{"a BOM is kept when the content has none", strp("\xEF\xBB\xBFold"), "new", "\xEF\xBB\xBFnew"},
		{"a BOM is not doubled when the content brings one", strp("\xEF\xBB\xBFold"), "\uFEFFnew", "\xEF\xBB\xBFnew"},
		{"an empty content on a BOM file leaves the BOM", strp("\xEF\xBB\xBFold"), "", "\xEF\xBB\xBF"},
		{"a CRLF-dominant file gets CRLF for bare LFs", strp("a\r\nb\r\nc\n"), "x\ny\n", "x\r\ny\r\n"},
		{"existing CRLFs in the content are not doubled", strp("a\r\nb\r\n"), "x\r\ny\n", "x\r\ny\r\n"},
		{"a tie is not CRLF-dominant", strp("a\r\nb\n"), "x\ny\n", "x\ny\n"},
		{"dominance is counted after the BOM", strp("\xEF\xBB\xBFa\r\nb\r\n"), "x\ny", "\xEF\xBB\xBFx\r\ny"},
		{"no trailing newline is added", strp("a\r\nb\r\n"), "x\ny", "x\r\ny"},
		{"the rules apply to a binary prior too", strp("\xEF\xBB\xBF\x00\r\n\r\n"), "x\n", "\xEF\xBB\xBFx\r\n"},
		{"lone CRs in the content stay", strp("a\r\nb\r\n"), "x\ry\n", "x\ry\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			if tc.prior != nil {
				w.file("f.txt", *tc.prior, 0o644)
			}
			_, err := w.p.WriteText(context.Background(), w.target("f.txt"), tc.content, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.want, w.content("f.txt"))
		})
	}
}

func TestWriteTextModesAndOwner(t *testing.T) {
	ctx := context.Background()
	t.Run("a new file is 0666 minus the umask and new parents 0777 minus it", func(t *testing.T) {
		w := newWorkspace(t)
		_, err := w.p.WriteText(ctx, w.target("x/y/new.txt"), "hi", nil)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), mode(t, w.path("x/y/new.txt")))
		assert.Equal(t, os.FileMode(0o755)|os.ModeDir, mode(t, w.path("x")))
		assert.Equal(t, os.FileMode(0o755)|os.ModeDir, mode(t, w.path("x/y")))
	})
	for _, m := range []os.FileMode{0o600, 0o755, 0o444, 0o640} {
		t.Run("an existing file keeps mode "+m.String(), func(t *testing.T) {
			w := newWorkspace(t)
			w.file("f.txt", "old", m)
			_, err := w.p.WriteText(ctx, w.target("f.txt"), "new", nil)
			require.NoError(t, err)
			assert.Equal(t, m, mode(t, w.path("f.txt")))
			assert.Equal(t, "new", w.content("f.txt"))
		})
	}
	t.Run("setuid, setgid and sticky bits are dropped", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("f.txt", "old", 0o755)
		require.NoError(t, os.Chmod(w.path("f.txt"), 0o755|os.ModeSetuid|os.ModeSetgid|os.ModeSticky))
		_, err := w.p.WriteText(ctx, w.target("f.txt"), "new", nil)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o755), mode(t, w.path("f.txt")))
	})
	t.Run("the owner is kept", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("f.txt", "old", 0o644)
		uid, gid := os.Geteuid(), os.Getegid()
		if uid == 0 {
			// As root the provider chowns the replacement: show it with an
			// owner that differs from ours.
			uid, gid = 65534, 65534
			require.NoError(t, os.Chown(w.path("f.txt"), uid, gid))
		}
		_, err := w.p.WriteText(ctx, w.target("f.txt"), "new", nil)
		require.NoError(t, err)
		st := statT(t, w.path("f.txt"))
		assert.Equal(t, uint32(uid), st.Uid)
		assert.Equal(t, uint32(gid), st.Gid)
	})
}

func TestWriteTextLinks(t *testing.T) {
	ctx := context.Background()
	t.Run("a write through a symlink updates the real file and the link survives", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("real.txt", "old", 0o644)
		w.symlink("link.txt", "real.txt")
		_, err := w.p.WriteText(ctx, w.target("link.txt"), "new", nil)
		require.NoError(t, err)
		assert.Equal(t, "new", w.content("real.txt"))
		text, err := os.Readlink(w.path("link.txt"))
		require.NoError(t, err, "still a link")
		assert.Equal(t, "real.txt", text)
	})
	t.Run("a write to a dangling symlink replaces the link and does not create its target", func(t *testing.T) {
		w := newWorkspace(t)
		w.symlink("dangling", "nowhere.txt")
		out, err := w.p.WriteText(ctx, w.target("dangling"), "new", nil)
		require.NoError(t, err)
		assert.Equal(t, fsapi.OperationCreate, out.Operation)
		fi, err := os.Lstat(w.path("dangling"))
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular())
		assert.NoFileExists(t, w.path("nowhere.txt"))
	})
	t.Run("hardLinks preserve rewrites in place so every link sees the content", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("a.txt", "old", 0o640)
		require.NoError(t, os.Link(w.path("a.txt"), w.path("b.txt")))
		ino := statT(t, w.path("a.txt")).Ino
		_, err := w.p.WriteText(ctx, w.target("a.txt"), "new", nil)
		require.NoError(t, err)
		assert.Equal(t, "new", w.content("b.txt"))
		assert.Equal(t, ino, statT(t, w.path("a.txt")).Ino)
		assert.Equal(t, uint64(2), uint64(statT(t, w.path("a.txt")).Nlink))
		assert.Equal(t, os.FileMode(0o640), mode(t, w.path("a.txt")))
	})
	t.Run("hardLinks break replaces the name and detaches it", func(t *testing.T) {
		w := newWorkspace(t, func(c *fslocalConfig) { c.HardLinks = "break" })
		w.file("a.txt", "old", 0o644)
		require.NoError(t, os.Link(w.path("a.txt"), w.path("b.txt")))
		ino := statT(t, w.path("a.txt")).Ino
		_, err := w.p.WriteText(ctx, w.target("a.txt"), "new", nil)
		require.NoError(t, err)
		assert.Equal(t, "new", w.content("a.txt"))
		assert.Equal(t, "old", w.content("b.txt"))
		assert.NotEqual(t, ino, statT(t, w.path("a.txt")).Ino)
	})
}

func TestWriteTextAtomicityAndCleanup(t *testing.T) {
	ctx := context.Background()
	t.Run("a staged replace makes a new inode and leaves no staging file", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("f.txt", "old", 0o644)
		ino := statT(t, w.path("f.txt")).Ino
		_, err := w.p.WriteText(ctx, w.target("f.txt"), "new", nil)
		require.NoError(t, err)
		assert.NotEqual(t, ino, statT(t, w.path("f.txt")).Ino)
		assert.Equal(t, []string{"f.txt"}, w.names("."))
	})
	t.Run("an abort at any check before the commit leaves the file as it was", func(t *testing.T) {
		for _, prior := range []string{"", "old content"} {
			w := newWorkspace(t)
			if prior != "" {
				w.file("f.txt", prior, 0o644)
			}
			tg := w.target("f.txt")
			aborted := 0
			for n := 0; ; n++ {
				_, err := w.p.WriteText(newCountdown(n), tg, "new", nil)
				if err == nil {
					break
				}
				aborted++
				assert.EqualError(t, err, "write aborted", "abort at check %d", n)
				if prior == "" {
					assert.NoFileExists(t, w.path("f.txt"))
				} else {
					assert.Equal(t, prior, w.content("f.txt"))
				}
				assert.Empty(t, w.stagingFiles("."), "abort at check %d", n)
				assert.Zero(t, w.p.LockCount())
				require.Less(t, n, 20, "the write never succeeded")
			}
			assert.GreaterOrEqual(t, aborted, 4, "entry, read, commit, mkdir and rename checks")
			assert.Equal(t, "new", w.content("f.txt"))
		}
	})
	t.Run("stale staging files of dead writers are swept by the next write in their directory", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("f.txt", "old", 0o644)
		stale := w.file(".f.txt.6f1c1b2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b.dsh-tmp", "partial", 0o600)
		other := w.file(".g.txt.6f1c1b2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b.dsh-tmp", "another file's", 0o600)
		unrelated := w.file(".f.txt.not-a-uuid.dsh-tmp", "user file", 0o600)
		_, err := w.p.WriteText(ctx, w.target("f.txt"), "new", nil)
		require.NoError(t, err)
		assert.NoFileExists(t, stale)
		assert.NoFileExists(t, other, "a staging file of another name is swept too")
		assert.FileExists(t, unrelated, "a name that is not a staging name is never touched")
	})
	t.Run("a staging file whose writer is alive is not swept", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("f.txt", "old", 0o644)
		live := w.file(".f.txt.0b1c1b2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b.dsh-tmp", "in progress", 0o600)
		f, err := os.Open(live)
		require.NoError(t, err)
		defer f.Close()
		require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
		_, err = w.p.WriteText(ctx, w.target("f.txt"), "new", nil)
		require.NoError(t, err)
		assert.FileExists(t, live)
	})
	t.Run("an uncoded failure passes through and leaves nothing behind", func(t *testing.T) {
		w := newWorkspace(t)
		tg := w.target("a/b/new.txt")
		w.file("a", "a file where a directory must go", 0o644)
		_, err := w.p.WriteText(ctx, tg, "new", nil)
		require.Error(t, err)
		assert.ErrorIs(t, err, syscall.ENOTDIR)
		assertUncoded(t, err)
		assert.Equal(t, []string{"a"}, w.names("."))
		assert.Zero(t, w.p.LockCount())
	})
}

// A write or edit of 10 MiB or more reports the bytes it writes to the
// reporter its context carries, up to the whole file.
func TestLargeChangesReportTheirBytes(t *testing.T) {
	w := newWorkspace(t)
	tg := w.target("big.txt")
	var got []int64
	ctx := fsapi.WithBytesProgress(context.Background(), func(done, total int64) { got = append(got, done) })
	big := strings.Repeat("0123456789abcde\n", 12<<20/16)
	_, err := w.p.WriteText(ctx, tg, big, nil)
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, int64(len(big)), got[2])
	got = nil
	_, err = w.p.EditText(ctx, tg, fsapi.EditRequest{OldString: "0123", NewString: "3210", ReplaceAll: true}, nil)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.Equal(t, int64(len(big)), got[len(got)-1])
	assert.Equal(t, strings.ReplaceAll(big, "0123", "3210"), w.content("big.txt"))
}
