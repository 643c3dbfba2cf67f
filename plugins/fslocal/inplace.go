package fslocal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/google/uuid"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// In-place rewrites (contract §3.7 [D9], [D9+]).
//
// A regular file with several hard links, under hardLinks "preserve", is
// rewritten in place so every link sees the new content. Truncating and
// writing the original directly would leave it partial after ENOSPC or a
// kill, so the rewrite goes through a marked copy:
//
//  1. Stage: the copy `.<base>.<uuid>.dsh-rewrite`, in the target's own
//     directory, holds a header (the target's dev and inode, its version
//     before the rewrite, the new and old lengths, the SHA-256 of the new
//     bytes, and a progress record), then the new bytes, then the old bytes.
//     It is fsynced, as is the directory. Until then nothing has touched
//     the original; a failure is `...; the file was not changed`.
//  2. Reserve: fallocate(FALLOC_FL_KEEP_SIZE) the larger of the two lengths
//     on the target, so the writes cannot meet ENOSPC; where the file
//     system cannot, statfs must show room for the growth. A failure is
//     `...; the file was not changed`.
//  3. Apply: copy the new bytes from the copy into the target in chunks,
//     truncate to the new length, fsync. Before every step its range is
//     recorded in the copy's progress record (write-ahead: "bytes [a,b)
//     are being written"), so a kill at any point leaves the target in a
//     state the record describes. A failure copies the old bytes back from
//     the copy (never from memory), recording each step the same way:
//     `...; the file was restored`.
//  4. Remove the copy.
//
// The copy's name is fixed for the target's name: `.<base>.<uuid>` with
// the name-based UUID of base, so the next read, write or edit of the
// target finds it with one lstat, whatever the target's link count is now
// (another link may have been removed since the kill). Two rewrites of one
// name never run at once: both hold the name's directory lock.
//
// After a kill, the next read, write or edit of the target (under its
// locks) that finds a marked copy checks it. A copy that is not complete
// (its staging was cut short, so the original was never touched) is
// removed. A complete one is applied again, but only while the target is
// provably in the state the killed rewrite left: same dev and inode, and
// content that the recorded step explains, checked byte for byte against
// the old and new bytes the copy holds: while writing [a,b), the new bytes
// up to some k in [a,b] and the old bytes after; while restoring [a,b), the
// old bytes up to a and each byte after either the old or the new one. The
// target already equal to the new bytes is always explained. Otherwise
// someone else changed the target since: target and copy are left alone,
// and a read, write or edit fails `an interrupted rewrite left a copy of
// its new content in "<copy>"; the file was not changed` (a read never
// serves bytes a killed rewrite may have torn). A live rewrite holds
// LOCK_EX on its copy, so a copy whose lock is held is left alone.

// rewriteSuffix ends every marked copy's name.
const rewriteSuffix = ".dsh-rewrite"

// rewriteChunk is how many bytes one apply step copies.
const rewriteChunk = 1 << 20

// rewriteHook is called at each step of an in-place rewrite with the step's
// name ("staging", "staged", "reserved", then per chunk "recorded", "write",
// "written", then "truncated", "synced", "applied"; per chunk of a rollback
// "restoring"). A non-nil result at "write" is taken as the failure
// of that write, at "staging" or "staged" as a failure of the staging. A
// test seam: production code never sets it.
var rewriteHook = func(step string) error { return nil }

// rewriteMark is the header of a marked copy.
type rewriteMark struct {
	dev, ino       uint64
	version        fsapi.Version
	newLen, oldLen int64
	sum            string // hex SHA-256 of the new bytes
	// headerLen is the header's length in bytes: the new bytes start there.
	headerLen int64
	// progressAt is the offset of the progress record's value.
	progressAt int64
}

// progressWidth is the width of the progress record's value (progressOf).
const progressWidth = 1 + 1 + 20 + 1 + 20

// Phases of the progress record: the step in flight writes new bytes, or
// restores old ones.
const (
	phaseWrite   = 'w'
	phaseRestore = 'r'
)

// progressOf formats the progress record "the step in phase that writes
// bytes [a,b) of the target is in flight": the phase letter and a and b in
// 20 decimal digits, separated by spaces. A truncation to length n is
// recorded as the empty range [n,n).
func progressOf(phase byte, a, b int64) string {
	return fmt.Sprintf("%c %020d %020d", phase, a, b)
}

// parseProgress reads a progress record written by progressOf.
func parseProgress(s string) (phase byte, a, b int64, ok bool) {
	fields := strings.Fields(s)
	if len(s) != progressWidth || len(fields) != 3 || len(fields[0]) != 1 {
		return 0, 0, 0, false
	}
	a, err1 := strconv.ParseInt(fields[1], 10, 64)
	b, err2 := strconv.ParseInt(fields[2], 10, 64)
	phase = fields[0][0]
	return phase, a, b, err1 == nil && err2 == nil && a >= 0 && a <= b && (phase == phaseWrite || phase == phaseRestore)
}

// header returns the header text of m and sets m.headerLen and
// m.progressAt. progress is the record's initial value.
func (m *rewriteMark) header(progress string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "dsh-rewrite 1\ndev %d\nino %d\nversion %s\nnew %d\nold %d\nsha256 %s\nprogress ",
		m.dev, m.ino, m.version, m.newLen, m.oldLen, m.sum)
	m.progressAt = int64(b.Len())
	b.WriteString(progress)
	b.WriteString("\n\n")
	m.headerLen = int64(b.Len())
	return b.Bytes()
}

// parseMark reads the header of the marked copy cp and checks that the copy
// is complete: its size and the checksum of its new bytes. ok is false for
// a copy whose staging was cut short.
func parseMark(cp *os.File) (m rewriteMark, progress string, ok bool) {
	buf := make([]byte, 4096)
	n, _ := cp.ReadAt(buf, 0)
	buf = buf[:n]
	end := bytes.Index(buf, []byte("\n\n"))
	if end < 0 {
		return m, "", false
	}
	fields := map[string]string{}
	for i, line := range strings.Split(string(buf[:end]), "\n") {
		k, v, _ := strings.Cut(line, " ")
		if i == 0 && line != "dsh-rewrite 1" {
			return m, "", false
		}
		fields[k] = v
	}
	var err1, err2, err3, err4 error
	m.dev, err1 = strconv.ParseUint(fields["dev"], 10, 64)
	m.ino, err2 = strconv.ParseUint(fields["ino"], 10, 64)
	m.newLen, err3 = strconv.ParseInt(fields["new"], 10, 64)
	m.oldLen, err4 = strconv.ParseInt(fields["old"], 10, 64)
	m.version, m.sum = fsapi.Version(fields["version"]), fields["sha256"]
	progress = fields["progress"]
	if err := errors.Join(err1, err2, err3, err4); err != nil || len(progress) != progressWidth || m.newLen < 0 || m.oldLen < 0 {
		return m, "", false
	}
	m.headerLen = int64(end) + 2
	m.progressAt = m.headerLen - 2 - progressWidth
	fi, err := cp.Stat()
	if err != nil || fi.Size() != m.headerLen+m.newLen+m.oldLen {
		return m, "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(cp, m.headerLen, m.newLen)); err != nil {
		return m, "", false
	}
	return m, progress, hex.EncodeToString(h.Sum(nil)) == m.sum
}

// commitInPlace rewrites the existing file t in place, keeping its inode,
// mode, owner and every other link ([D9]), through a marked copy ([D9+]). Failures are FS_WRITE_FAILED
// for op, except a file the process may not open for writing (FS_PERMISSION_DENIED,
// [D7]) and a refusal of the confinement root (FS_SANDBOX_DENIED).
func (p *Provider) commitInPlace(t fsapi.Target, c change) error {
	op, data := c.op, c.data
	dir, base := filepath.Dir(t.Key), filepath.Base(t.Key)
	p.sweep(c.lock.at(dir), dir)
	f, err := p.tree.openFile(t.Key, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		return coded(op, t.DisplayPath, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return notChanged(op, t, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return fsapi.ErrNotRegularFile(op, t.DisplayPath)
	}
	sum := sha256.Sum256([]byte(data))
	m := rewriteMark{dev: uint64(st.Dev), ino: st.Ino, version: versionOf(fi),
		newLen: int64(len(data)), oldLen: fi.Size(), sum: hex.EncodeToString(sum[:])}
	cp, cpPath, err := p.stageRewrite(dir, base, &m, progressOf(phaseWrite, 0, 0), data, f)
	if err != nil {
		return notChanged(op, t, err)
	}
	defer cp.Close()
	if err := rewriteHook("staged"); err != nil {
		p.tree.remove(cpPath)
		return notChanged(op, t, err)
	}
	if err := reserve(f, max(m.newLen, m.oldLen), m.newLen-m.oldLen); err != nil {
		p.tree.remove(cpPath)
		return notChanged(op, t, err)
	}
	rewriteHook("reserved")
	if err := applyRewrite(f, cp, &m); err != nil {
		if rerr := restoreRewrite(f, cp, &m); rerr != nil {
			return fsapi.ErrInterruptedRewrite(op, t.DisplayPath, copyDisplay(t, cpPath))
		}
		p.tree.remove(cpPath)
		return fsapi.ErrWriteRestored(op, t.DisplayPath, reason(err), err)
	}
	rewriteHook("applied")
	p.tree.remove(cpPath)
	if c.mode != 0 && fi.Mode().Perm() != c.mode.Perm() {
		if err := f.Chmod(c.mode.Perm()); err != nil {
			return coded(op, t.DisplayPath, err)
		}
	}
	return nil
}

// notChanged is FS_WRITE_FAILED `cannot <op> "<p>": <reason>; the file was
// not changed`, unless err is a confinement refusal.
func notChanged(op string, t fsapi.Target, err error) error {
	if escapes(err) {
		return fsapi.ErrOutsideWorkspace(t.DisplayPath, err)
	}
	return fsapi.ErrWriteNotChanged(op, t.DisplayPath, reason(err), err)
}

// reason returns the platform text of err's innermost cause ("no space left
// on device"), without the operation and path os errors prepend.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		err = se.Err
	}
	return err.Error()
}

// copyDisplay is the display path of the marked copy cpPath: the target's
// display directory joined with the copy's name.
func copyDisplay(t fsapi.Target, cpPath string) string {
	return filepath.Join(filepath.Dir(t.DisplayPath), filepath.Base(cpPath))
}

// stageRewrite creates, locks, fills and fsyncs the marked copy of m in dir
// (step 1), and fsyncs dir: the header, data, then the m.oldLen current
// bytes copied from the target f (never held whole in memory). On failure
// nothing is left behind.
func (p *Provider) stageRewrite(dir, base string, m *rewriteMark, progress, data string, f *os.File) (*os.File, string, error) {
	path := rewriteCopy(dir, base)
	cp, err := p.tree.openFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, "", err
	}
	err = flock(cp, syscall.LOCK_EX)
	if err == nil {
		_, err = cp.Write(m.header(progress))
	}
	if err == nil {
		err = rewriteHook("staging")
	}
	if err == nil {
		_, err = io.WriteString(cp, data)
	}
	if err == nil {
		var n int64
		n, err = io.Copy(cp, io.NewSectionReader(f, 0, m.oldLen))
		if err == nil && n != m.oldLen {
			err = io.ErrUnexpectedEOF
		}
	}
	if err == nil {
		err = cp.Sync()
	}
	if err == nil {
		err = p.syncDir(nil, dir)
	}
	if err != nil {
		cp.Close()
		p.tree.remove(path)
		return nil, "", err
	}
	return cp, path, nil
}

// reserve makes sure writing size bytes into f cannot run out of space
// (step 2): fallocate with FALLOC_FL_KEEP_SIZE, which allocates without
// changing the content or size; where the file system cannot, statfs must
// show at least growth bytes free.
func reserve(f *os.File, size, growth int64) error {
	const keepSize = 0x01 // FALLOC_FL_KEEP_SIZE
	if size == 0 {
		return nil
	}
	err := syscall.Fallocate(int(f.Fd()), keepSize, 0, size)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.EOPNOTSUPP) && !errors.Is(err, syscall.ENOSYS) {
		return &fs.PathError{Op: "fallocate", Path: f.Name(), Err: err}
	}
	if growth <= 0 {
		return nil
	}
	var sfs syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &sfs); err != nil {
		return &fs.PathError{Op: "statfs", Path: f.Name(), Err: err}
	}
	if int64(sfs.Bavail)*sfs.Bsize < growth {
		return &fs.PathError{Op: "statfs", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return nil
}

// rewriteCopy returns the path of the marked copy of base in dir:
// `.<base>.<uuid>.dsh-rewrite` with the name-based (SHA-1) UUID of base, so
// a name has one copy path, found with one lstat.
func rewriteCopy(dir, base string) string {
	return joinName(dir, stagingPrefix(base)+uuid.NewSHA1(uuid.NameSpaceURL, []byte(base)).String()+rewriteSuffix)
}

// copyPending reports whether the marked copy path of key exists: one
// lstat of the absolute path, not through the confinement root, since it
// only decides whether the recovery, which works through the root, runs.
func copyPending(key string) bool {
	var st syscall.Stat_t
	return syscall.Lstat(rewriteCopy(filepath.Dir(key), filepath.Base(key)), &st) == nil
}

// recordProgress writes the record "the step in phase writing [a,b) is in
// flight" into cp, before that step touches the target (write-ahead).
func recordProgress(cp *os.File, m *rewriteMark, phase byte, a, b int64) error {
	_, err := cp.WriteAt([]byte(progressOf(phase, a, b)), m.progressAt)
	return err
}

// applyRewrite copies the new bytes of cp into f and truncates f to their
// length, recording each step before it runs, then fsyncs f (step 3).
func applyRewrite(f, cp *os.File, m *rewriteMark) error {
	buf := make([]byte, min(m.newLen, rewriteChunk))
	for off := int64(0); off < m.newLen; {
		n := min(int64(len(buf)), m.newLen-off)
		if _, err := cp.ReadAt(buf[:n], m.headerLen+off); err != nil {
			return err
		}
		if err := recordProgress(cp, m, phaseWrite, off, off+n); err != nil {
			return err
		}
		rewriteHook("recorded")
		if err := rewriteHook("write"); err != nil {
			return err
		}
		if _, err := f.WriteAt(buf[:n], off); err != nil {
			return err
		}
		rewriteHook("written")
		off += n
	}
	if err := recordProgress(cp, m, phaseWrite, m.newLen, m.newLen); err != nil {
		return err
	}
	if err := f.Truncate(m.newLen); err != nil {
		return err
	}
	rewriteHook("truncated")
	if err := f.Sync(); err != nil {
		return err
	}
	rewriteHook("synced")
	return nil
}

// restoreRewrite copies the old bytes of cp back into f, truncates it to
// their length and fsyncs it: the rollback of a failed apply.
func restoreRewrite(f, cp *os.File, m *rewriteMark) error {
	src := io.NewSectionReader(cp, m.headerLen+m.newLen, m.oldLen)
	buf := make([]byte, min(max(m.oldLen, 1), rewriteChunk))
	for off := int64(0); off < m.oldLen; {
		n, err := src.ReadAt(buf, off)
		if n > 0 {
			if rerr := recordProgress(cp, m, phaseRestore, off, off+int64(n)); rerr != nil {
				return rerr
			}
			rewriteHook("restoring")
			if _, werr := f.WriteAt(buf[:n], off); werr != nil {
				return werr
			}
			off += int64(n)
		}
		if err != nil && !(errors.Is(err, io.EOF) && off == m.oldLen) {
			return err
		}
	}
	if err := recordProgress(cp, m, phaseRestore, m.oldLen, m.oldLen); err != nil {
		return err
	}
	if err := f.Truncate(m.oldLen); err != nil {
		return err
	}
	return f.Sync()
}

// recoverOne applies, removes or keeps the marked copy cpPath of t, under
// t's locks (see the top of this file). It reports whether a rewrite was
// finished (t's version changed); an error is FS_WRITE_FAILED naming the
// copy, for op.
func (p *Provider) recoverOne(t fsapi.Target, op, cpPath string) (bool, error) {
	cp, err := p.tree.openFile(cpPath, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false, nil // gone, or not ours to touch
	}
	defer cp.Close()
	if fi, err := cp.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	if flock(cp, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false, nil // a live rewrite holds it
	}
	m, progress, complete := parseMark(cp)
	if !complete {
		p.tree.remove(cpPath) // staging was cut short: the original was never touched
		return false, nil
	}
	refuse := func() (bool, error) {
		return false, fsapi.ErrInterruptedRewrite(op, t.DisplayPath, copyDisplay(t, cpPath))
	}
	phase, a, b, ok := parseProgress(progress)
	if !ok {
		return refuse()
	}
	f, err := p.tree.openFile(t.Key, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		return refuse()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return refuse()
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || uint64(st.Dev) != m.dev || st.Ino != m.ino {
		return refuse()
	}
	if left, err := m.explains(f, cp, fi.Size(), phase, a, b); err != nil || !left {
		return refuse()
	}
	if err := applyRewrite(f, cp, &m); err != nil {
		return refuse()
	}
	p.tree.remove(cpPath)
	return true, nil
}

// explains reports whether the size bytes of the target f are a state the
// rewrite m of copy cp leaves while the recorded step (phase, [a,b)) is in
// flight or done: the new bytes whole; or, writing, new[:k] ++ old[k:] for
// a k in [a,b] (the file grows as it is written past the old length); or,
// restoring, old[:a] and after it each byte the old or the new one at its
// offset, with the length of the old bytes or of the longer of the two.
func (m *rewriteMark) explains(f, cp *os.File, size int64, phase byte, a, b int64) (bool, error) {
	newer := io.NewSectionReader(cp, m.headerLen, m.newLen)
	older := io.NewSectionReader(cp, m.headerLen+m.newLen, m.oldLen)
	if size == m.newLen {
		k, err := samePrefix(f, newer, 0, size)
		if err != nil || k == size {
			return k == size, err
		}
	}
	switch phase {
	case phaseWrite:
		k, err := samePrefix(f, newer, 0, min(size, m.newLen, b))
		if err != nil || k < a || size != max(m.oldLen, k) {
			return false, err
		}
		rest, err := samePrefix(f, older, k, size)
		return rest == size, err
	case phaseRestore:
		if size != m.oldLen && size != max(m.oldLen, m.newLen) || a > size {
			return false, nil
		}
		k, err := samePrefix(f, older, 0, a)
		if err != nil || k < a {
			return false, err
		}
		return eachFrom(f, older, newer, a, size)
	}
	return false, nil
}

// compareChunk is how many bytes the recovery's content checks read at once
// from each side.
const compareChunk = 256 << 10

// samePrefix returns the first offset in [from, to) where x and y differ,
// or to when they agree on all of it.
func samePrefix(x, y io.ReaderAt, from, to int64) (int64, error) {
	bx, by := make([]byte, compareChunk), make([]byte, compareChunk)
	for off := from; off < to; {
		n := min(int64(compareChunk), to-off)
		if _, err := x.ReadAt(bx[:n], off); err != nil {
			return off, err
		}
		if _, err := y.ReadAt(by[:n], off); err != nil {
			return off, err
		}
		for i := range n {
			if bx[i] != by[i] {
				return off + i, nil
			}
		}
		off += n
	}
	return to, nil
}

// eachFrom reports whether every byte of f in [from, to) equals the byte of
// older or of newer at its offset (either may be shorter than to).
func eachFrom(f io.ReaderAt, older, newer *io.SectionReader, from, to int64) (bool, error) {
	bf, bo, bn := make([]byte, compareChunk), make([]byte, compareChunk), make([]byte, compareChunk)
	for off := from; off < to; {
		n := min(int64(compareChunk), to-off)
		if _, err := f.ReadAt(bf[:n], off); err != nil {
			return false, err
		}
		no, _ := older.ReadAt(bo[:n], off)
		nn, _ := newer.ReadAt(bn[:n], off)
		for i := range int(n) {
			if !(i < no && bf[i] == bo[i]) && !(i < nn && bf[i] == bn[i]) {
				return false, nil
			}
		}
		off += n
	}
	return true, nil
}

// recoverBefore runs the recovery of a killed rewrite of t for op before op
// uses the followed stat fi of the regular file t (contract §3.7 [D9+]): one
// lstat of t's copy path (copyPending), whatever t's link count (another link may have
// gone since the kill). For "read" it takes t's locks itself (the inode
// lock too); "write", "edit" and "restore" already hold them. It returns t's stat
// after the recovery (changed when a rewrite was finished); a copy that
// cannot be applied is FS_WRITE_FAILED naming it, for read too, so a read
// never serves bytes a killed rewrite may have torn. A protected file
// (one Refuse refuses to change) is never rewritten by a recovery: no tool
// can have started a rewrite of it, so a copy beside it is not ours and
// is left alone.
func (p *Provider) recoverBefore(ctx context.Context, t fsapi.Target, op string, fi fs.FileInfo) (fs.FileInfo, error) {
	if !copyPending(t.Key) || p.Refuse(ctx, t, "write") != nil {
		return fi, nil
	}
	cpPath := rewriteCopy(filepath.Dir(t.Key), filepath.Base(t.Key))
	if op == "read" {
		lk, release, err := p.lockTarget(ctx, t, op)
		if err != nil {
			return nil, err
		}
		defer release()
		now, err := p.statKey(t.Key)
		if err != nil {
			return fi, nil // the caller's open reports it
		}
		if fi, err = p.lockInPlace(ctx, lk, t, op, now); err != nil || fi == nil {
			return now, err // a nil fi: gone meanwhile, the caller's open reports it
		}
	}
	finished, err := p.recoverOne(t, op, cpPath)
	if err != nil || !finished {
		return fi, err
	}
	fi, err = p.statKey(t.Key)
	if err != nil {
		return nil, coded(op, t.DisplayPath, err)
	}
	return fi, nil
}
