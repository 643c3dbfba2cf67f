package fslocal_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// observe reads rel whole as the read tool does, under a digest sink, and
// returns the version stat saw before and the digest the read reported.
func (w *workspace) observe(rel string) (fsapi.Version, fsapi.Digest) {
	w.t.Helper()
	tg := w.target(rel)
	info, err := w.p.Stat(context.Background(), tg)
	require.NoError(w.t, err)
	var d fsapi.Digest
	_, err = w.p.ReadText(fsapi.WithDigestSink(context.Background(), func(got fsapi.Digest) { d = got }), tg)
	require.NoError(w.t, err)
	return info.Version, d
}

// rewrites are what other programs do to a file between a read and an
// edit: each leaves its bytes as they were or changes them, and always
// changes its stat (and so its version).
var rewrites = map[string]func(t *testing.T, path string, data []byte){
	"touched": func(t *testing.T, path string, _ []byte) {
		later := time.Now().Add(time.Hour)
		require.NoError(t, os.Chtimes(path, later, later))
	},
	"rewritten in place": func(t *testing.T, path string, data []byte) {
		require.NoError(t, os.WriteFile(path, data, 0o644))
	},
	"replaced by a new file (an IDE's atomic save)": func(t *testing.T, path string, data []byte) {
		tmp := path + ".tmp"
		require.NoError(t, os.WriteFile(tmp, data, 0o644))
		require.NoError(t, os.Rename(tmp, path))
	},
}

// TestFreshnessByContent ([D24]): a guard whose version is gone still
// passes while the file holds exactly the bytes it digests; any byte that
// differs, or a guard without a digest, is FS_STALE_VERSION.
func TestFreshnessByContent(t *testing.T) {
	const text = "\ufeffpackage main\r\n\nfunc main() {}\n"
	for name, rewrite := range rewrites {
		t.Run(name+", the same bytes: the edit lands", func(t *testing.T) {
			w := newWorkspace(t)
			w.file("a.go", text, 0o644)
			v, d := w.observe("a.go")
			require.False(t, d.IsZero())
			rewrite(t, w.path("a.go"), []byte(text))
			now, err := w.p.Stat(context.Background(), w.target("a.go"))
			require.NoError(t, err)
			require.NotEqual(t, v, now.Version, "the stat changed")
			_, err = w.p.EditText(context.Background(), w.target("a.go"), fsapi.EditRequest{OldString: "main()", NewString: "run()"}, &fsapi.EditGuard{Version: v, Digest: d})
			require.NoError(t, err)
			assert.Equal(t, "\ufeffpackage main\r\n\nfunc run() {}\n", w.content("a.go"))
		})
		if name == "touched" {
			continue // a touch changes no byte
		}
		t.Run(name+", one byte changed: stale", func(t *testing.T) {
			w := newWorkspace(t)
			w.file("a.go", text, 0o644)
			v, d := w.observe("a.go")
			rewrite(t, w.path("a.go"), []byte(strings.Replace(text, "main()", "mainX)", 1)))
			_, err := w.p.EditText(context.Background(), w.target("a.go"), fsapi.EditRequest{OldString: "package", NewString: "pkg"}, &fsapi.EditGuard{Version: v, Digest: d})
			assertFailure(t, err, fsapi.CodeStaleVersion, `cannot edit "`+w.path("a.go")+`": file changed since it was read`)
		})
	}
	t.Run("the BOM alone differs: stale", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("a.txt", "\ufeffab\n", 0o644)
		v, d := w.observe("a.txt")
		require.NoError(t, os.WriteFile(w.path("a.txt"), []byte("ab\n"), 0o644))
		_, err := w.p.EditText(context.Background(), w.target("a.txt"), fsapi.EditRequest{OldString: "a", NewString: "b"}, &fsapi.EditGuard{Version: v, Digest: d})
		assertFailure(t, err, fsapi.CodeStaleVersion, "")
	})
	t.Run("a guard without a digest is by version alone", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("a.txt", "ab\n", 0o644)
		v, _ := w.observe("a.txt")
		require.NoError(t, os.WriteFile(w.path("a.txt"), []byte("ab\n"), 0o644))
		_, err := w.p.EditText(context.Background(), w.target("a.txt"), fsapi.EditRequest{OldString: "a", NewString: "b"}, &fsapi.EditGuard{Version: v})
		assertFailure(t, err, fsapi.CodeStaleVersion, "")
	})
	t.Run("a write with ReplaceIfVersion is judged the same way", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("a.txt", "ab\n", 0o644)
		v, d := w.observe("a.txt")
		rewrites["replaced by a new file (an IDE's atomic save)"](t, w.path("a.txt"), []byte("ab\n"))
		_, err := w.p.WriteText(context.Background(), w.target("a.txt"), "new\n", &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: v, Digest: d})
		require.NoError(t, err)
		assert.Equal(t, "new\n", w.content("a.txt"))

		v, d = w.observe("a.txt")
		require.NoError(t, os.WriteFile(w.path("a.txt"), []byte("nex\n"), 0o644))
		_, err = w.p.WriteText(context.Background(), w.target("a.txt"), "x", &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: v, Digest: d})
		assertFailure(t, err, fsapi.CodeStaleVersion, `cannot write "`+w.path("a.txt")+`": file changed since it was read`)
		assert.Equal(t, "nex\n", w.content("a.txt"))
	})
	t.Run("a file that is gone is still gone", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("a.txt", "ab\n", 0o644)
		v, d := w.observe("a.txt")
		require.NoError(t, os.Remove(w.path("a.txt")))
		_, err := w.p.WriteText(context.Background(), w.target("a.txt"), "x", &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: v, Digest: d})
		assertFailure(t, err, fsapi.CodeStaleVersion, `cannot write "`+w.path("a.txt")+`": file no longer exists`)
	})
	t.Run("a cancelled context at any check aborts, never stale", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("a.txt", "ab\n", 0o644)
		v, d := w.observe("a.txt")
		rewrites["touched"](t, w.path("a.txt"), nil)
		// Cancel at each context check in turn (the comparison's read has
		// its own) until the edit gets through.
		for n := 0; ; n++ {
			require.Less(t, n, 50)
			_, err := w.p.EditText(newCountdown(n), w.target("a.txt"), fsapi.EditRequest{OldString: "a", NewString: "b"}, &fsapi.EditGuard{Version: v, Digest: d})
			if err == nil {
				break
			}
			assertFailure(t, err, fsapi.CodeAborted, "edit aborted")
			assert.Equal(t, "ab\n", w.content("a.txt"))
		}
		assert.Equal(t, "bb\n", w.content("a.txt"))
	})
}

// TestDigestBound: past digestMaxBytes nothing is digested, so freshness
// is by stat; a file whose size no longer matches the digest is stale
// without being read.
func TestDigestBound(t *testing.T) {
	w := newWorkspace(t, func(c *fslocal.Config) { c.DigestMaxBytes = 8 })
	w.file("small", "12345678", 0o644)
	w.file("big", "123456789", 0o644)
	_, d := w.observe("small")
	assert.Equal(t, int64(8), d.Size())
	_, d = w.observe("big")
	assert.True(t, d.IsZero(), "over the bound: no digest")

	_, err := fslocal.New(fslocal.Config{Cwd: w.dir, DigestMaxBytes: -1})
	assert.ErrorIs(t, err, fslocal.ErrDigestMaxBytes)
	assert.Contains(t, err.Error(), "digestMaxBytes: fslocal: digestMaxBytes must not be negative")
}

// TestDigestsReported: every whole-content call reports the digest of the
// bytes on disk after it; a stream stopped early and a file over the bound
// report nothing.
func TestDigestsReported(t *testing.T) {
	w := newWorkspace(t)
	w.file("a.txt", "\ufeffone\r\ntwo\r\n", 0o644)
	ctxFor := func(got *[]fsapi.Digest) context.Context {
		return fsapi.WithDigestSink(context.Background(), func(d fsapi.Digest) { *got = append(*got, d) })
	}
	onDisk := func() fsapi.Digest { return fsapi.DigestOf(w.content("a.txt")) }

	var got []fsapi.Digest
	_, err := w.p.ReadText(ctxFor(&got), w.target("a.txt"))
	require.NoError(t, err)
	assert.Equal(t, []fsapi.Digest{onDisk()}, got, "ReadText: the raw bytes, BOM included")

	got = nil
	chunks, err := w.p.StreamBytes(ctxFor(&got), w.target("a.txt"))
	require.NoError(t, err)
	for _, err := range chunks {
		require.NoError(t, err)
	}
	assert.Equal(t, []fsapi.Digest{onDisk()}, got, "a stream read to its end")

	w.file("big.txt", strings.Repeat("line\n", 100_000), 0o644)
	got = nil
	chunks, err = w.p.StreamBytes(ctxFor(&got), w.target("big.txt"))
	require.NoError(t, err)
	for range chunks {
		break
	}
	assert.Empty(t, got, "a stream stopped early saw only part of the file")

	got = nil
	_, err = w.p.EditText(ctxFor(&got), w.target("a.txt"), fsapi.EditRequest{OldString: "two", NewString: "2"}, nil)
	require.NoError(t, err)
	assert.Equal(t, []fsapi.Digest{onDisk()}, got, "EditText: the bytes committed")

	got = nil
	_, err = w.p.WriteText(ctxFor(&got), w.target("a.txt"), "x\ny\n", nil)
	require.NoError(t, err)
	assert.Equal(t, "\ufeffx\r\ny\r\n", w.content("a.txt"))
	assert.Equal(t, []fsapi.Digest{onDisk()}, got, "WriteText: the bytes written (BOM and CRLF kept), not the content given")

	got = nil
	_, err = w.p.InsertText(ctxFor(&got), w.target("a.txt"), fsapi.InsertRequest{Line: 0, Text: "z"}, nil)
	require.NoError(t, err)
	assert.Equal(t, []fsapi.Digest{onDisk()}, got, "InsertText")

	got = nil
	_, err = w.p.EditText(ctxFor(&got), w.target("a.txt"), fsapi.EditRequest{OldString: "absent", NewString: "b"}, nil)
	require.Error(t, err)
	assert.Empty(t, got, "a failed edit reports nothing")
}

// assertFailure checks that err is an *fsapi.Error with code and, when msg
// is not empty, that message.
func assertFailure(t *testing.T, err error, code fsapi.Code, msg string) {
	t.Helper()
	assertCode(t, code, err)
	if msg != "" && assert.Error(t, err) {
		assert.Equal(t, msg, err.Error())
	}
}
