package fslocal

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// TestOpenWithoutOpenat2 takes the os.Root path Open falls back to where
// openat2 is unavailable: the same bytes and the same errors.
func TestOpenWithoutOpenat2(t *testing.T) {
	openat2Disabled = true
	defer func() { openat2Disabled = false }()
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	p, err := New(Config{Cwd: w, Root: w})
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.bin"), []byte("\xEF\xBB\xBFx\x00"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(w, "d"), 0o755))
	tg, err := p.Resolve(context.Background(), "a.bin", fsapi.ResolveOptions{})
	require.NoError(t, err)
	rc, err := p.Open(context.Background(), tg)
	require.NoError(t, err)
	got, _ := io.ReadAll(rc)
	rc.Close()
	assert.Equal(t, "\xEF\xBB\xBFx\x00", string(got))
	d, err := p.Resolve(context.Background(), "d", fsapi.ResolveOptions{})
	require.NoError(t, err)
	_, err = p.Open(context.Background(), d)
	assert.EqualError(t, err, `cannot read "`+w+`/d": not a regular file`)
}

// The root's raw descriptor is the directory the os.Root handle holds: when
// the root's path names another directory by the time it is first needed
// (the workspace moved and a new one made in its place), reads stay in the
// held one, through the os.Root path, as before the raw descriptor.
func TestRootFDIsTheHeldDirectory(t *testing.T) {
	parent, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	w := filepath.Join(parent, "ws")
	require.NoError(t, os.Mkdir(w, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("held\n"), 0o644))
	p, err := New(Config{Cwd: w, Root: w})
	require.NoError(t, err)
	defer p.Close()

	require.NoError(t, os.Rename(w, filepath.Join(parent, "moved")))
	require.NoError(t, os.Mkdir(w, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("impostor\n"), 0o644))

	_, err = p.tree.rootFD()
	assert.ErrorIs(t, err, errNoOpenat2, "the path now names another directory")
	tg := fsapi.Target{Key: filepath.Join(w, "a.txt"), DisplayPath: "a.txt"}
	text, err := p.ReadText(context.Background(), tg)
	require.NoError(t, err)
	assert.Equal(t, "held\n", text)
	rc, err := p.Open(context.Background(), tg)
	require.NoError(t, err)
	got, _ := io.ReadAll(rc)
	rc.Close()
	assert.Equal(t, "held\n", string(got))
}

// A socket reached by ReadText or Open (one swapped in after the caller's
// stat) is not a regular file, not the bare ENXIO its open gives.
func TestASocketIsNotARegularFile(t *testing.T) {
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	l, err := net.Listen("unix", filepath.Join(w, "s.sock"))
	require.NoError(t, err)
	defer l.Close()
	for _, root := range []string{"", w} {
		p, err := New(Config{Cwd: w, Root: root})
		require.NoError(t, err)
		tg := fsapi.Target{Key: filepath.Join(w, "s.sock"), DisplayPath: "s.sock"}
		_, err = p.ReadText(context.Background(), tg)
		assert.EqualError(t, err, `cannot read "s.sock": not a regular file`, "root %q", root)
		var fe *fsapi.Error
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, fsapi.CodeNotRegularFile, fe.Code)
		_, err = p.Open(context.Background(), tg)
		assert.EqualError(t, err, `cannot read "s.sock": not a regular file`, "root %q", root)
		p.Close()
	}
}
