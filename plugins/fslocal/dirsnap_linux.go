package fslocal

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// dirSnapshots remembers what recent reads of directories returned, so a
// listing of a directory that has not changed since (what an agent does all
// day) costs one fstat instead of reading it again: on ext4 a read of a
// 200-entry directory builds and frees the kernel's hash-ordered copy of it,
// most of a warm list's time (issue 10).
//
// A snapshot is used only while the directory's inode, device, ctime,
// mtime, size and link count are all unchanged. Every change of a
// directory's entries (create, unlink, rename, mkdir, rmdir, link, symlink,
// mknod) sets its ctime and mtime to the current time, and the kernel's
// timestamps come from a clock that advances in ticks (at most 10 ms) or
// finer. So a snapshot is taken only when the directory's ctime and mtime
// after the read are at least dirSnapshotSettle older than the clock before
// it: no change can have happened during the read, and any later change
// stamps a time past the snapshot's. It holds only names and the types the
// read reported: symlinks are still resolved, and entries of unknown type
// still probed, on every listing.
//
// Only file systems whose timestamps are kept by the local kernel as above
// are trusted (dirSnapshotFS); on any other (network, FUSE, overlay) every
// listing reads the directory. A clock stepped backwards could in principle
// stamp a change with exactly a snapshot's nanosecond time; that is the one
// case this cannot see.
type dirSnapshots struct {
	mu    sync.Mutex
	m     map[dirID]dirSnapshot
	names int // names held in m, at most dirSnapshotMaxNames
}

// dirID is a directory's identity: its device and inode.
type dirID struct{ dev, ino uint64 }

// dirSnapshot is one read of a directory and the stat that proves it
// current.
type dirSnapshot struct {
	stamp   dirStamp
	entries []typedName // shared, never modified
}

// dirStamp is what must be unchanged for a snapshot to hold.
type dirStamp struct {
	ctime, mtime unix.Timespec
	size         int64
	nlink        uint64
}

// dirSnapshotSettle is how much older than the clock a directory's
// timestamps must be for its read to be remembered: far more than one
// clock tick, so the snapshot is not taken within the tick of a change.
// Tests shorten it (never below a tick) to see snapshots taken.
var dirSnapshotSettle = time.Second

// dirSnapshotMaxNames bounds the names held; past it the store starts
// afresh. dirSnapshotMaxDir is the largest directory remembered.
const (
	dirSnapshotMaxNames = 1 << 16
	dirSnapshotMaxDir   = 1 << 14
)

// dirSnapshotFS are the file systems (statfs f_type) whose directory
// timestamps the local kernel sets on every change of entries.
var dirSnapshotFS = map[int64]bool{
	unix.EXT4_SUPER_MAGIC:  true, // also ext2 and ext3
	unix.XFS_SUPER_MAGIC:   true,
	unix.BTRFS_SUPER_MAGIC: true,
	unix.TMPFS_MAGIC:       true,
}

func stampOf(st *unix.Stat_t) dirStamp {
	return dirStamp{ctime: st.Ctim, mtime: st.Mtim, size: st.Size, nlink: uint64(st.Nlink)}
}

// readDir returns the typed names of the open directory fd: a snapshot
// when one holds, else a read (readTypedFD), remembered when it may be.
func (s *dirSnapshots) readDir(fd int) ([]typedName, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return readTypedFD(fd)
	}
	id := dirID{dev: st.Dev, ino: st.Ino}
	s.mu.Lock()
	snap, ok := s.m[id]
	s.mu.Unlock()
	if ok && snap.stamp == stampOf(&st) {
		return snap.entries, nil
	}
	before := time.Now()
	entries, err := readTypedFD(fd)
	if err != nil || len(entries) > dirSnapshotMaxDir {
		return entries, err
	}
	if stamp, ok := settledStamp(fd, id, before); ok {
		s.put(id, dirSnapshot{stamp: stamp, entries: entries})
	}
	return entries, nil
}

// settledStamp returns the stamp of the directory fd (id) after a read
// that started at before, and whether the read may be remembered: the
// directory's ctime and mtime are dirSnapshotSettle older than before (so
// nothing changed it from before on) and its file system is one of
// dirSnapshotFS (asked each time a snapshot is taken: a device number can
// be reused by another mount).
func settledStamp(fd int, id dirID, before time.Time) (dirStamp, bool) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Dev != id.dev || st.Ino != id.ino {
		return dirStamp{}, false
	}
	settled := before.Add(-dirSnapshotSettle)
	if !settled.After(timeOf(st.Ctim)) || !settled.After(timeOf(st.Mtim)) {
		return dirStamp{}, false // changed too recently to be sure nothing changed during the read
	}
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(fd, &sfs); err != nil || !dirSnapshotFS[int64(sfs.Type)] {
		return dirStamp{}, false
	}
	return stampOf(&st), true
}

func timeOf(ts unix.Timespec) time.Time { return time.Unix(ts.Unix()) }

func (s *dirSnapshots) put(id dirID, snap dirSnapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || s.names+len(snap.entries) > dirSnapshotMaxNames {
		s.m, s.names = map[dirID]dirSnapshot{}, 0
	}
	if old, ok := s.m[id]; ok {
		s.names -= len(old.entries)
	}
	s.m[id] = snap
	s.names += len(snap.entries)
}
