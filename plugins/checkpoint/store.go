package checkpoint

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// The store of one workspace (docs/checkpoints.md "The store"):
//
//	<dir>/lock          flock(2): numbering, appends and sweeps, across processes
//	<dir>/steps.jsonl   the journal: one Step per line, oldest first
//	<dir>/blobs/<hh>/<sha256>   content, by its SHA-256, mode 0600
//
// A blob is written (staged, synced, renamed, its directory synced) before
// the step that names it is appended, both under the lock, so a record
// never names content that was not durable; a step whose blob is gone was
// evicted. A journal line torn by a crash is cut off by the next append.

// Step is one mutating call of a conversation: its number in the
// workspace's store, when its mutation ended, the conversation (ID and the
// incarnation, Timeline) and tool that made it, and the files it changed.
//
// A rewind's step is appended before it restores anything, Pending, and
// completed by a later line (complete) once its files are restored; a
// Pending step that was never completed (a crash cut the rewind short)
// left each of its files as before it or as after it.
type Step struct {
	N            int64     `json:"step"`
	Time         time.Time `json:"time"`
	Conversation string    `json:"conversation"`
	Timeline     string    `json:"timeline"`
	Tool         string    `json:"tool"`
	Pending      bool      `json:"pending,omitempty"`
	Changes      []Change  `json:"changes"`
}

// Change is what one step did to one file: its path as the tools showed it,
// the provider's key, the file before and after, and the lines added and
// removed (Counted false when either side's content was not kept).
type Change struct {
	Path    string `json:"path"`
	Key     string `json:"key"`
	Before  State  `json:"before"`
	After   State  `json:"after"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Counted bool   `json:"counted"`
}

// State is a file at one moment of a step: Absent, or its content by
// SHA256 (hex) and Size; Version is the provider's version (of the copy
// before a mutation, or the one a mutation left) and Digest the
// fsapi.Digest of the bytes a mutation wrote, when the tool reported one
// (fsapi.Digest.String). Mode is the file's permission bits with its
// content before a mutation (0 when the provider does not say), which a
// rewind gives it back. Omitted says why the content was not kept
// ("larger than …", "changed while it was copied", …); SHA256 is then
// empty.
type State struct {
	Absent  bool        `json:"absent,omitempty"`
	SHA256  string      `json:"sha256,omitempty"`
	Size    int64       `json:"size,omitempty"`
	Version string      `json:"version,omitempty"`
	Digest  string      `json:"digest,omitempty"`
	Mode    fs.FileMode `json:"mode,omitempty"`
	Omitted string      `json:"omitted,omitempty"`
}

// kept reports whether s names content or an absence: what a rewind can
// put back.
func (s State) kept() bool { return s.Absent || s.SHA256 != "" }

// drop records the content sum as not kept, for why, in every change of
// s that names it; the lines added and removed stay.
func (s *Step) drop(sum, why string) {
	for i := range s.Changes {
		for _, st := range []*State{&s.Changes[i].Before, &s.Changes[i].After} {
			if st.SHA256 == sum {
				st.SHA256, st.Omitted = "", why
			}
		}
	}
}

// dropped is the journal's first line after a sweep dropped old steps: the
// numbers up to Through stay used.
type dropped struct {
	Through int64 `json:"dropped"`
}

// Lost is a step the store refused (its lock held by another process too
// long, its disk failing), which the process that made it writes to the
// journal once the store takes a step again: when its call ended, its
// conversation, timeline and tool, the files it changed (as shown, and
// their keys) and why. A rewind never puts its files back to the bytes it
// left.
type Lost struct {
	Time         time.Time `json:"time"`
	Conversation string    `json:"conversation"`
	Timeline     string    `json:"timeline"`
	Tool         string    `json:"tool"`
	Paths        []string  `json:"paths"`
	Keys         []string  `json:"keys"`
	Why          string    `json:"why"`
}

// lostLine is the journal line of a Lost.
type lostLine struct {
	Lost Lost `json:"lost"`
}

// completed is the line that completes the Pending step N: the files of
// Left (provider keys) were not restored and leave the step; a step left
// with no file leaves the index (its number stays used).
type completed struct {
	N    int64    `json:"complete"`
	Left []string `json:"left,omitempty"`
}

// store is one workspace's store, shared by the processes that serve it.
type store struct {
	dir      string
	maxBytes int64
	maxAge   time.Duration

	mu    sync.Mutex // serialises this process; the flock the others
	lock  *os.File
	steps []Step // the journal as read up to off
	lost  []Lost // its Lost lines
	last  int64  // the highest number used
	off   int64  // journal bytes read
	id    fileID // the journal read (a sweep replaces it)
	bytes int64  // blob bytes, as last counted
	held  bool   // the last wait for the flock failed: another process holds it
	now   func() time.Time
}

type fileID struct{ dev, ino uint64 }

// newStore returns the store in dir; nothing is read or created until it
// is first used (a `dshhost call read` never opens it).
func newStore(dir string, maxBytes int64, maxAge time.Duration) *store {
	return &store{dir: dir, maxBytes: maxBytes, maxAge: maxAge, now: time.Now}
}

// openLocked creates the store (mode 0700) when it is not there, opens its
// lock file and, holding the lock, counts and sweeps it. st.mu is held.
func (st *store) openLocked() error {
	if err := os.MkdirAll(filepath.Join(st.dir, "blobs"), 0o700); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	if err := os.Chmod(st.dir, 0o700); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(st.dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	st.lock = lock
	return st.flocked(func() error {
		n, err := st.countBlobs()
		if err != nil {
			return err
		}
		st.bytes = n
		return st.sweepLocked()
	})
}

// close releases the lock file.
func (st *store) close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.lock == nil {
		return nil
	}
	err := st.lock.Close()
	st.lock = nil
	return err
}

// locked runs fn holding the store's lock (this process's mutex and the
// flock other processes take), after reading what others appended; it
// opens the store first when this process has not yet.
func (st *store) locked(fn func() error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.lock == nil {
		if err := st.openLocked(); err != nil {
			if st.lock != nil {
				st.lock.Close()
				st.lock = nil
			}
			return err
		}
	}
	return st.flocked(fn)
}

// lockWait bounds the wait for the store's lock while another process
// holds it (a server stopped with SIGSTOP, a long sweep).
const lockWait = 10 * time.Second

// errLockWait is the error of a store whose lock another process held
// for lockWait.
var errLockWait = fmt.Errorf("checkpoint store: another process has held its lock for %s", lockWait)

// flocked runs fn under the flock, after reading what others appended; it
// waits for the flock up to lockWait, then fails with errLockWait. Once a
// wait failed, the next uses try the flock once and fail at once until
// one takes it, so a queue of steps, or a listing behind them, never
// waits lockWait each. st.mu is held.
func (st *store) flocked(fn func() error) error {
	deadline := time.Now().Add(lockWait)
	if st.held {
		deadline = time.Now()
	}
	// Polled every 2 ms at most: a longer sleep lets a busy process take
	// the lock again and again while this one sleeps, and its steps then
	// reach the store far out of the order of their changes.
	for delay := 100 * time.Microsecond; ; delay = min(2*delay, 2*time.Millisecond) {
		err := syscall.Flock(int(st.lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("checkpoint store: lock: %w", err)
		}
		if !time.Now().Before(deadline) {
			st.held = true
			return fmt.Errorf("%w (%s)", errLockWait, st.lock.Name())
		}
		time.Sleep(delay)
	}
	st.held = false
	defer syscall.Flock(int(st.lock.Fd()), syscall.LOCK_UN)
	if err := st.refreshLocked(); err != nil {
		return err
	}
	return fn()
}

// journal is the journal's path.
func (st *store) journal() string { return filepath.Join(st.dir, "steps.jsonl") }

// refreshLocked reads the journal lines appended since the last read (all
// of it when a sweep replaced it), and cuts a torn last line.
func (st *store) refreshLocked() error {
	f, err := os.OpenFile(st.journal(), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		st.steps, st.lost, st.off, st.id = nil, nil, 0, fileID{}
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	sys := fi.Sys().(*syscall.Stat_t)
	id := fileID{uint64(sys.Dev), uint64(sys.Ino)}
	if id != st.id || fi.Size() < st.off {
		st.steps, st.lost, st.off, st.id = nil, nil, 0, id
	}
	if fi.Size() == st.off {
		return nil
	}
	if _, err := f.Seek(st.off, io.SeekStart); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				// A line a crash tore: no step was committed by it.
				if err := f.Truncate(st.off); err != nil {
					return fmt.Errorf("checkpoint store: %w", err)
				}
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("checkpoint store: %w", err)
		}
		st.off += int64(len(line))
		st.parse(line)
	}
}

// parse adds one journal line to the index; a line that is not a record
// is skipped.
func (st *store) parse(line []byte) {
	if bytes.HasPrefix(line, []byte(`{"dropped":`)) {
		var d dropped
		if json.Unmarshal(line, &d) == nil {
			st.last = max(st.last, d.Through)
		}
		return
	}
	if bytes.HasPrefix(line, []byte(`{"lost":`)) {
		var l lostLine
		if json.Unmarshal(line, &l) == nil {
			st.lost = append(st.lost, l.Lost)
		}
		return
	}
	if bytes.HasPrefix(line, []byte(`{"complete":`)) {
		var c completed
		if json.Unmarshal(line, &c) == nil {
			st.completeIndex(c)
		}
		return
	}
	var s Step
	if json.Unmarshal(line, &s) != nil || s.N <= st.last {
		return
	}
	st.steps = append(st.steps, s)
	st.last = s.N
}

// commit writes blobs (content by SHA-256 hex) that the store lacks, then
// appends s under the next number, which it sets; it sweeps when the
// store is past a bound. A content that cannot be written (a full disk)
// is recorded in s as not kept, with why, and the step is appended
// without it, so the steps after it still know what the file held.
func (st *store) commit(s *Step, blobs map[string][]byte) error {
	return st.locked(func() error {
		for sum, data := range blobs {
			if err := st.writeBlobLocked(sum, data); err != nil {
				s.drop(sum, "the store could not keep it: "+cause(err))
			}
		}
		s.N = st.last + 1
		line, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if err := st.appendLocked(line); err != nil {
			return err
		}
		if err := st.refreshLocked(); err != nil {
			return err
		}
		if st.bytes > st.maxBytes || (len(st.steps) > 0 && st.now().Sub(st.steps[0].Time) > st.maxAge) {
			return st.sweepLocked()
		}
		return nil
	})
}

// completeIndex applies c to the index.
func (st *store) completeIndex(c completed) {
	i := slices.IndexFunc(st.steps, func(s Step) bool { return s.N == c.N })
	if i < 0 || !st.steps[i].Pending {
		return
	}
	s := &st.steps[i]
	s.Pending = false
	s.Changes = slices.DeleteFunc(slices.Clone(s.Changes), func(ch Change) bool { return slices.Contains(c.Left, ch.Key) })
	if len(s.Changes) == 0 {
		st.steps = slices.Delete(st.steps, i, i+1)
	}
}

// complete appends the line that completes the Pending step n, whose
// files of left were not restored.
func (st *store) complete(n int64, left []string) error {
	return st.appendRecord(completed{N: n, Left: left})
}

// appendRecord appends v as one journal line and reads it into the index.
func (st *store) appendRecord(v any) error {
	return st.locked(func() error {
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := st.appendLocked(line); err != nil {
			return err
		}
		return st.refreshLocked()
	})
}

// appendLocked appends line and a newline to the journal, synced (and
// its directory, when it creates the journal).
func (st *store) appendLocked(line []byte) error {
	created := st.id == fileID{}
	f, err := os.OpenFile(st.journal(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && created {
		err = syncDir(st.dir)
	}
	if err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	return nil
}

// snapshot returns the steps and the Lost records as the journal holds
// them now, oldest first.
func (st *store) snapshot() ([]Step, []Lost, error) {
	var steps []Step
	var lost []Lost
	err := st.locked(func() error {
		steps, lost = slices.Clone(st.steps), slices.Clone(st.lost)
		return nil
	})
	return steps, lost, err
}

// recordLost appends l's line.
func (st *store) recordLost(l Lost) error { return st.appendRecord(lostLine{l}) }

// blobPath is where the content with SHA-256 sum (hex) lives.
func (st *store) blobPath(sum string) string {
	return filepath.Join(st.dir, "blobs", sum[:2], sum)
}

// writeBlobLocked stores data as sum unless it is there: staged beside it,
// synced, renamed, the directory synced.
func (st *store) writeBlobLocked(sum string, data []byte) error {
	p := st.blobPath(sum)
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	tmp := filepath.Join(dir, ".tmp-"+randomName())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint store: %w", err)
	}
	st.bytes += int64(len(data))
	return nil
}

// readBlob returns the content sum names, or an error wrapping
// fs.ErrNotExist when it was evicted. A blob whose bytes no longer digest
// to its name is refused.
func (st *store) readBlob(sum string) ([]byte, error) {
	data, err := os.ReadFile(st.blobPath(sum))
	if err != nil {
		return nil, err
	}
	if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
		return nil, fmt.Errorf("checkpoint store: the content %s is damaged", sum[:12])
	}
	return data, nil
}

// has reports whether the content sum names is still in the store.
func (st *store) has(sum string) bool {
	_, err := os.Lstat(st.blobPath(sum))
	return err == nil
}

// countBlobs returns the bytes of every blob.
func (st *store) countBlobs() (int64, error) {
	var n int64
	err := st.walkBlobs(func(_, _ string, size int64) { n += size })
	return n, err
}

// walkBlobs calls fn for each file under blobs/: its path, its name and
// its size.
func (st *store) walkBlobs(fn func(path, name string, size int64)) error {
	root := filepath.Join(st.dir, "blobs")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		fn(p, d.Name(), info.Size())
		return nil
	})
	if err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	return nil
}

// sweepLocked drops the steps older than maxAge (rewriting the journal),
// removes blobs no step names and staging files a crash left, then evicts
// content, that of the oldest steps first, until the blobs fit maxBytes.
// A blob is evicted at the age of the newest step that names it.
func (st *store) sweepLocked() error {
	cut := 0
	for cut < len(st.steps) && st.now().Sub(st.steps[cut].Time) > st.maxAge {
		cut++
	}
	if cut > 0 {
		if err := st.rewriteLocked(st.steps[cut:]); err != nil {
			return err
		}
	}
	newest := map[string]int64{} // sum → the newest step naming it
	for _, s := range st.steps {
		for _, c := range s.Changes {
			for _, sum := range []string{c.Before.SHA256, c.After.SHA256} {
				if sum != "" {
					newest[sum] = s.N
				}
			}
		}
	}
	type blob struct {
		path  string
		size  int64
		order int64
	}
	var live []blob
	var total int64
	err := st.walkBlobs(func(p, name string, size int64) {
		n, ok := newest[name]
		if !ok {
			os.Remove(p) // unnamed: a dropped step's, or staged by a crash
			return
		}
		live = append(live, blob{p, size, n})
		total += size
	})
	if err != nil {
		return err
	}
	if stale, _ := filepath.Glob(filepath.Join(st.dir, ".steps-*")); len(stale) > 0 {
		for _, p := range stale {
			os.Remove(p) // a journal a crash left half rewritten
		}
	}
	slices.SortFunc(live, func(a, b blob) int { return cmp.Compare(a.order, b.order) })
	for _, b := range live {
		if total <= st.maxBytes {
			break
		}
		if os.Remove(b.path) == nil {
			total -= b.size
		}
	}
	st.bytes = total
	return nil
}

// rewriteLocked replaces the journal by one that holds keep, after a line
// that keeps the numbers used: staged, synced, renamed.
func (st *store) rewriteLocked(keep []Step) error {
	var buf bytes.Buffer
	line, _ := json.Marshal(dropped{Through: st.last})
	buf.Write(append(line, '\n'))
	for _, l := range st.lost {
		if st.now().Sub(l.Time) <= st.maxAge {
			line, err := json.Marshal(lostLine{l})
			if err != nil {
				return err
			}
			buf.Write(append(line, '\n'))
		}
	}
	for _, s := range keep {
		line, err := json.Marshal(s)
		if err != nil {
			return err
		}
		buf.Write(append(line, '\n'))
	}
	tmp := filepath.Join(st.dir, ".steps-"+randomName())
	err := os.WriteFile(tmp, buf.Bytes(), 0o600)
	if err == nil {
		var f *os.File
		if f, err = os.Open(tmp); err == nil {
			err = f.Sync()
			f.Close()
		}
	}
	if err == nil {
		err = os.Rename(tmp, st.journal())
	}
	if err == nil {
		err = syncDir(st.dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint store: %w", err)
	}
	st.id, st.off, st.steps, st.lost = fileID{}, 0, nil, nil
	return st.refreshLocked()
}

// cause returns the system's reason for err ("no space left on device"),
// or err's text when it has none.
func cause(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// syncDir makes a directory's entries durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// randomName returns 16 random hex digits.
func randomName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// digestOf returns the fsapi.Digest of data, as fsapi.DigestOf of it as
// a string, without copying it.
func digestOf(data []byte) fsapi.Digest {
	h := fsapi.NewDigestHash()
	h.Write(data)
	return h.Digest()
}

// sumOf returns the SHA-256 of data in hex.
func sumOf(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// storeDir returns the store of the workspace whose real path is ws:
// $DSH_STATE_DIR/checkpoints/<sha256 of ws>, else under
// $XDG_STATE_HOME/dshhost (~/.local/state/dshhost when unset).
func storeDir(ws string, getenv func(string) string) (string, error) {
	base := getenv("DSH_STATE_DIR")
	if base == "" {
		state := getenv("XDG_STATE_HOME")
		if state == "" || !filepath.IsAbs(state) {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", errors.New("checkpoint: no home directory for the store: set DSH_STATE_DIR")
			}
			state = filepath.Join(home, ".local", "state")
		}
		base = filepath.Join(state, "dshhost")
	}
	base, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(ws))
	return filepath.Join(base, "checkpoints", hex.EncodeToString(sum[:])), nil
}

// inside reports whether the real location of p is ws or beneath it.
func inside(p, ws string) bool {
	real := fsapi.RealLocation(p)
	return ws == "/" || real == ws || strings.HasPrefix(real, ws+string(filepath.Separator))
}
