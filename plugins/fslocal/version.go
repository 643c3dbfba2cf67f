package fslocal

import (
	"io/fs"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

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
	return versionFrom(uint64(st.Dev), uint64(st.Ino), int64(st.Size), st.Mtim.Nano(), st.Ctim.Nano())
}

// versionOfStat is versionOf for a child examined with fstatat.
func versionOfStat(st *unix.Stat_t) fsapi.Version {
	return versionFrom(uint64(st.Dev), uint64(st.Ino), int64(st.Size), st.Mtim.Nano(), st.Ctim.Nano())
}

// versionFrom spells the version token of contract §3.3.
func versionFrom(dev, ino uint64, size, mtimeNs, ctimeNs int64) fsapi.Version {
	b := make([]byte, 0, 80)
	b = strconv.AppendUint(b, dev, 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, ino, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, size, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, mtimeNs, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, ctimeNs, 10)
	return fsapi.Version(b)
}

// missingVersion is the sentinel version of a mutation whose final re-probe
// found the file gone: `missing:<key>` (contract §3.3).
func missingVersion(key string) fsapi.Version {
	return fsapi.Version("missing:" + key)
}
