package fslocal

import (
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// record builds one linux_dirent64 record, padded to 8 bytes.
func record(name string, typ byte) []byte {
	n := (direntName + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint16(b[direntReclen:], uint16(n))
	b[direntType] = typ
	copy(b[direntName:], name)
	return b
}

func TestAppendDirents(t *testing.T) {
	var buf []byte
	for _, r := range [][]byte{
		record(".", syscall.DT_DIR), record("..", syscall.DT_DIR),
		record("file", syscall.DT_REG), record("dir", syscall.DT_DIR), record("link", syscall.DT_LNK),
		record("fifo", syscall.DT_FIFO), record("odd", syscall.DT_UNKNOWN),
	} {
		buf = append(buf, r...)
	}
	got := appendDirents(nil, buf)
	assert.Equal(t, []typedName{
		{"file", 0}, {"dir", fs.ModeDir}, {"link", fs.ModeSymlink}, {"fifo", fs.ModeNamedPipe}, {"odd", typeUnknown},
	}, got)

	bad := record("x", syscall.DT_REG)
	binary.NativeEndian.PutUint16(bad[direntReclen:], uint16(len(bad)+8))
	assert.Empty(t, appendDirents(nil, bad), "a record longer than the buffer is not read")
}

// TestReadTypedReadsEveryEntry: the getdents64 reader returns every name of
// a directory larger than its buffer, with the kernel's types.
func TestReadTypedReadsEveryEntry(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := range 1500 { // well past one 32 KiB getdents buffer
		name := filepath.Join(dir, "entry-with-a-longish-name-"+string(rune('a'+i%26))+"-"+strconv.Itoa(i))
		require.NoError(t, os.WriteFile(name, nil, 0o644))
		want = append(want, filepath.Base(name))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	want = append(want, "sub")
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	got, err := readTypedFD(fd)
	require.NoError(t, err)
	var names []string
	for _, e := range got {
		names = append(names, e.name)
		if e.name == "sub" {
			assert.Equal(t, fs.ModeDir, e.typ)
		} else {
			assert.Equal(t, fs.FileMode(0), e.typ, e.name)
		}
	}
	slices.Sort(names)
	slices.Sort(want)
	assert.Equal(t, want, names)
}
