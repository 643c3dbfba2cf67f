package fslocal

import (
	"io/fs"
	"strconv"
	"syscall"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// versionOf returns the version token of fi, which must come from a Unix
// stat: `<dev>:<ino>:<size>:<mtimeNs>:<ctimeNs>` in decimal, times in
// nanoseconds since the epoch (contract §3.3). ctime and the inode make a
// same-size rewrite with a restored mtime visible.
func versionOf(fi fs.FileInfo) fsapi.Version {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		// Not reachable on Unix; keep a token that still changes with size
		// and mtime.
		b := strconv.AppendInt(nil, fi.Size(), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, fi.ModTime().UnixNano(), 10)
		return fsapi.Version(b)
	}
	b := make([]byte, 0, 80)
	b = strconv.AppendUint(b, uint64(st.Dev), 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(st.Ino), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(st.Size), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, st.Mtim.Nano(), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, st.Ctim.Nano(), 10)
	return fsapi.Version(b)
}

// missingVersion is the sentinel version of a mutation whose final re-probe
// found the file gone: `missing:<key>` (contract §3.3).
func missingVersion(key string) fsapi.Version {
	return fsapi.Version("missing:" + key)
}
