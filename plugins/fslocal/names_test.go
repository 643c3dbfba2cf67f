package fslocal_test

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Hostile names and paths (contract §3.2 [D16] [D17]).

// modes runs f unconfined and confined to the workspace.
func modes(t *testing.T, f func(t *testing.T, w *workspace)) {
	for name, opts := range map[string][]func(*fslocalConfig){"unconfined": nil, "confined": {confined}} {
		t.Run(name, func(t *testing.T) { f(t, newWorkspace(t, opts...)) })
	}
}

func TestNormalizationTwinsAreOneFile(t *testing.T) {
	ctx := context.Background()
	const nfd, nfc = "Spe\u0301cifications.txt", "Sp\u00e9cifications.txt"
	modes(t, func(t *testing.T, w *workspace) {
		w.file(nfd, "spec\n", 0o644)
		tg, err := w.p.Resolve(ctx, nfc, fsapi.ResolveOptions{})
		require.NoError(t, err)
		assert.Equal(t, w.path(nfc), tg.DisplayPath, "the display path keeps the model's spelling")
		assert.Equal(t, w.path(nfd), tg.Key, "the key is the on-disk name")
		text, err := w.p.ReadText(ctx, tg)
		require.NoError(t, err)
		assert.Equal(t, "spec\n", text)
		_, err = w.p.WriteText(ctx, tg, "new\n", nil)
		require.NoError(t, err)
		assert.Equal(t, []string{nfd}, w.names("."), "no second, identical-looking file")
		assert.Equal(t, "new\n", w.content(nfd))

		// The other way round, through a directory, and the Kelvin sign.
		w.file("d\u00e9j\u00e0/K.txt", "k", 0o644)
		tg, err = w.p.Resolve(ctx, "de\u0301ja\u0300/\u212a.txt", fsapi.ResolveOptions{})
		require.NoError(t, err)
		assert.Equal(t, w.path("d\u00e9j\u00e0/K.txt"), tg.Key, "U+212A KELVIN SIGN is K in NFC")

		// A byte-exact entry wins, two twins are ambiguous (missing).
		w.file("twin/"+nfc, "c", 0o644)
		w.file("twin/"+nfd, "d", 0o644)
		tg, err = w.p.Resolve(ctx, "twin/"+nfc, fsapi.ResolveOptions{})
		require.NoError(t, err)
		assert.Equal(t, w.path("twin/"+nfc), tg.Key)
		w.file("two/Sp\u00e9c.txt", "c", 0o644)
		w.file("two/Spe\u0301c.txt", "d", 0o644)
		tg, err = w.p.Resolve(ctx, "two/Spe\u0301\u0301c.txt", fsapi.ResolveOptions{})
		require.NoError(t, err)
		assert.Equal(t, w.path("two/Spe\u0301\u0301c.txt"), tg.Key, "no unique twin: missing as written")
	})
}

func TestNULInAPath(t *testing.T) {
	ctx := context.Background()
	modes(t, func(t *testing.T, w *workspace) {
		for path, shown := range map[string]string{
			"a.txt\x00../../etc/passwd": w.dir + `/a.txt\0../../etc/passwd`,
			"/etc/x\x00":                `/etc/x\0`,
		} {
			_, err := w.p.Resolve(ctx, path, fsapi.ResolveOptions{})
			assert.EqualError(t, err, `cannot resolve "`+shown+`": the path contains a NUL character`)
			assertCode(t, fsapi.CodeInvalidPath, err)
			_, err = w.p.Lstat(ctx, path, fsapi.ResolveOptions{})
			assert.EqualError(t, err, `cannot resolve "`+shown+`": the path contains a NUL character`)
		}
	})
}

func TestOverLongComponent(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("x", 300)
	modes(t, func(t *testing.T, w *workspace) {
		for _, rel := range []string{long, "missing/" + long + "/f.txt", long + "/f.txt"} {
			_, err := w.p.Resolve(ctx, rel, fsapi.ResolveOptions{})
			assert.EqualError(t, err, `cannot resolve "`+w.path(rel)+`": a path component is too long`)
			assertCode(t, fsapi.CodeInvalidPath, err)
		}
		assert.Empty(t, w.names("."), "nothing is created")
		tg, err := w.p.Resolve(ctx, strings.Repeat("y", 255), fsapi.ResolveOptions{})
		require.NoError(t, err, "255 bytes is allowed")
		_, err = w.p.WriteText(ctx, tg, "ok", nil)
		require.NoError(t, err, "even with the staging name's prefix and suffix")
	})
}

func TestPathsPastPathMax(t *testing.T) {
	ctx := context.Background()
	modes(t, func(t *testing.T, w *workspace) {
		var parts []string
		for i := range 21 {
			parts = append(parts, strings.Repeat(string(rune('a'+i)), 200))
		}
		dir := strings.Join(parts, "/")
		rel := dir + "/f.txt"
		require.Greater(t, len(w.path(rel)), 4096)

		tg, err := w.p.Resolve(ctx, rel, fsapi.ResolveOptions{})
		require.NoError(t, err)
		out, err := w.p.WriteText(ctx, tg, "one\n", nil)
		require.NoError(t, err)
		assert.Equal(t, fsapi.OperationCreate, out.Operation)
		tg, err = w.p.Resolve(ctx, rel, fsapi.ResolveOptions{})
		require.NoError(t, err, "resolve once it exists")
		info, err := w.p.Stat(ctx, tg)
		require.NoError(t, err)
		require.NotNil(t, info)
		assert.Equal(t, out.Version, info.Version)
		text, err := w.p.ReadText(ctx, tg)
		require.NoError(t, err)
		assert.Equal(t, "one\n", text)
		seq, err := w.p.StreamText(ctx, tg)
		require.NoError(t, err)
		chunks, _, err := collect(t, seq)
		require.NoError(t, err)
		assert.Equal(t, "one\n", chunks)
		rc, err := w.p.Open(ctx, tg)
		require.NoError(t, err, "grep's Open reaches it too")
		raw, err := io.ReadAll(rc)
		rc.Close()
		require.NoError(t, err)
		assert.Equal(t, "one\n", string(raw))
		_, err = w.p.EditText(ctx, tg, fsapi.EditRequest{OldString: "one", NewString: "two"}, &fsapi.EditGuard{Version: info.Version})
		require.NoError(t, err)
		out, err = w.p.WriteText(ctx, tg, "three\n", nil)
		require.NoError(t, err)
		assert.Equal(t, fsapi.OperationUpdate, out.Operation)
		entries, err := w.p.ListDir(ctx, w.target(dir))
		require.NoError(t, err)
		require.Len(t, entries, 1)
		assert.Equal(t, "f.txt", entries[0].Name)
		assert.Equal(t, fsapi.TypeFile, entries[0].Type)
		li, err := w.p.Lstat(ctx, rel, fsapi.ResolveOptions{})
		require.NoError(t, err)
		require.NotNil(t, li)
		assert.Equal(t, fsapi.TypeFile, li.Type)

		// The bytes on disk, read through a handle (component by component).
		r, err := os.OpenRoot(w.dir)
		require.NoError(t, err)
		defer r.Close()
		b, err := r.ReadFile(rel)
		require.NoError(t, err)
		assert.Equal(t, "three\n", string(b))
	})
}
