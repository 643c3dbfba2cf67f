package fslocal

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// confinedProvider returns a provider confined to a new temporary
// directory, closed when the test ends, and the directory's real path.
func confinedProvider(t *testing.T) (*Provider, string) {
	t.Helper()
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	p, err := New(Config{Cwd: w, Root: w})
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return p, w
}

// TestUntypedEntriesAreProbed: a file system that reports DT_UNKNOWN gets
// each child's type from one fstatat through the listed directory's
// descriptor, so its listing equals the typed one.
func TestUntypedEntriesAreProbed(t *testing.T) {
	p, w := confinedProvider(t)
	d := filepath.Join(w, "d")
	require.NoError(t, os.MkdirAll(filepath.Join(d, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(d, "f.txt"), []byte("x"), 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(d, "pipe"), 0o644))
	require.NoError(t, os.Symlink("f.txt", filepath.Join(d, "link")))
	require.NoError(t, os.Symlink("nowhere", filepath.Join(d, "broken")))

	fd, err := unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	typed, err := readTypedFD(fd)
	require.NoError(t, err)
	require.Len(t, typed, 5)
	untyped := make([]typedName, len(typed))
	for i, e := range typed {
		assert.NotEqual(t, typeUnknown, e.typ, e.name)
		assert.Equal(t, e.typ, lstatTypeAt(fd, e.name), e.name)
		untyped[i] = typedName{name: e.name, typ: typeUnknown}
	}
	untyped = append(untyped, typedName{name: "vanished", typ: typeUnknown})
	assert.Equal(t, fs.ModeIrregular, lstatTypeAt(fd, "vanished"))

	tg := fsapi.Target{Key: d, DisplayPath: d}
	want, err := p.typedEntries(context.Background(), tg, -1, typed) // a bad descriptor: nothing typed is probed
	require.NoError(t, err)
	got, err := p.typedEntries(context.Background(), tg, fd, untyped)
	require.NoError(t, err)
	want = append(want, fsapi.DirEntry{Name: "vanished", Type: fsapi.TypeOther, Target: fsapi.Target{Key: d + "/vanished", DisplayPath: d + "/vanished"}})
	assert.Equal(t, want, got)
}
