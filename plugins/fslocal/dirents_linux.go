package fslocal

import (
	"encoding/binary"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// direntBuffers hold getdents64 buffers between listings: a fresh 32 KiB
// buffer per listing was zeroed on every call.
var direntBuffers = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// readTypedFD returns the entries of the open directory fd with the types
// the kernel's getdents64 reports (d_type), "." and ".." left out, in
// directory order, reading it to the end with plain getdents64 calls;
// EINTR is retried. os.File.ReadDir would lstat every entry of a directory
// opened through an os.Root, the cost the cheap listing exists to avoid
// (contract §3.6 [D21]). An entry whose d_type is DT_UNKNOWN (some file
// systems) has typeUnknown; the caller probes it.
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
