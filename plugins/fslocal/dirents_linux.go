package fslocal

import (
	"encoding/binary"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// readTyped returns the entries of the open directory f with the types the
// kernel's getdents64 reports (d_type), "." and ".." left out, in directory
// order. os.File.ReadDir would lstat every entry of a directory opened
// through an os.Root, which is the cost the cheap listing exists to avoid
// (contract §3.6 [D21]). An entry whose d_type is DT_UNKNOWN (some file
// systems) has typeUnknown; the caller probes it.
func readTyped(f *os.File) ([]typedName, error) {
	conn, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var out []typedName
	var rerr error
	if err := conn.Control(func(fd uintptr) { out, rerr = readTypedFD(int(fd)) }); err != nil {
		return nil, err
	}
	return out, rerr
}

// direntBuffers hold getdents64 buffers between listings: a fresh 32 KiB
// buffer per listing was zeroed on every call.
var direntBuffers = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// readTypedFD is readTyped on the directory descriptor fd, which it reads
// to the end with plain getdents64 calls (a directory is never registered
// with the runtime's poller: the kernel refuses it, EPERM, after a wasted
// call); EINTR is retried.
func readTypedFD(fd int) ([]typedName, error) {
	buf := direntBuffers.Get().(*[32 << 10]byte)
	defer direntBuffers.Put(buf)
	var out []typedName
	for {
		n, err := unix.Getdents(fd, buf[:])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &os.SyscallError{Syscall: "getdents64", Err: err}
		case n <= 0:
			return out, nil
		}
		out = appendDirents(out, buf[:n])
	}
}

// linux_dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name
// (NUL-terminated), the record padded to d_reclen bytes.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// appendDirents appends the records of one getdents64 buffer.
func appendDirents(out []typedName, b []byte) []typedName {
	for len(b) >= direntName {
		reclen := int(binary.NativeEndian.Uint16(b[direntReclen:]))
		if reclen < direntName || reclen > len(b) {
			break // a malformed record: stop rather than misread
		}
		rec := b[:reclen]
		b = b[reclen:]
		name := rec[direntName:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if string(name) == "." || string(name) == ".." || len(name) == 0 {
			continue
		}
		out = append(out, typedName{name: string(name), typ: direntMode(rec[direntType])})
	}
	return out
}

// direntMode maps a d_type to fs.FileMode type bits.
func direntMode(t byte) fs.FileMode {
	switch t {
	case syscall.DT_REG:
		return 0
	case syscall.DT_DIR:
		return fs.ModeDir
	case syscall.DT_LNK:
		return fs.ModeSymlink
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe
	case syscall.DT_SOCK:
		return fs.ModeSocket
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.DT_BLK:
		return fs.ModeDevice
	}
	return typeUnknown
}

// lstatTypeAt returns the type bits of the child name of the directory
// descriptor fd, not following a symlink (one fstatat); a child that
// vanished or cannot be examined is fs.ModeIrregular (other). A stat
// mode's S_IFMT bits shifted right by 12 are the d_type of the same type.
func lstatTypeAt(fd int, name string) fs.FileMode {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fs.ModeIrregular
	}
	if t := direntMode(byte((st.Mode & unix.S_IFMT) >> 12)); t != typeUnknown {
		return t
	}
	return fs.ModeIrregular
}
