package fslocal

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/google/uuid"
)

// Staging files.
//
// A staged replace writes the new bytes to a staging file in the target's
// own directory and renames it over the target (contract §3.7 step 10). Its
// name is `.<base>.<uuid>.dsh-tmp`: it starts with a dot, holds the target's
// base name (cut to keep the name within 255 bytes) and a fresh UUID, and it
// is created with O_EXCL, so it never clobbers an existing path.
//
// A process killed mid-write leaves its staging file behind. We sweep them
// rather than stage with O_TMPFILE: an O_TMPFILE file still needs a name
// before rename (rename takes no descriptor, and linkat cannot replace), so a
// kill between linkat and rename leaves a named file all the same; linking an
// O_TMPFILE descriptor also needs /proc or CAP_DAC_READ_SEARCH, and not every
// filesystem supports it. The sweep is the one mechanism that covers every
// crash point on every filesystem.
//
// Liveness is an flock: the writer holds LOCK_EX on its staging file from
// creation until the file is renamed or removed, and the kernel drops the
// lock when the process dies, however it dies. Before each commit the writer
// sweeps the target's directory: a staging file of the same base name whose
// lock it can take without waiting belongs to nobody and is removed. A
// sweeper may take a file in the instant between its creation and its
// writer's flock; the writer then finds the file unlinked (link count 0)
// once it holds the lock, and starts over with a new name. Under confinement
// every step goes through the os.Root handle.

// stagingSuffix ends every staging file name.
const stagingSuffix = ".dsh-tmp"

// stagingPrefix returns the name prefix of the staging files of base:
// `.<base>.`, with base cut so a full name, with the longer suffix of a
// marked copy (rewrite.go), fits in 255 bytes.
func stagingPrefix(base string) string {
	limit := 255 - len(".") - len(".") - 36 - len(rewriteSuffix)
	if len(base) > limit {
		base = base[:limit]
	}
	return "." + base + "."
}

// isMarked reports whether name is `<prefix><uuid><suffix>`.
func isMarked(name, prefix, suffix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	id, ok := strings.CutSuffix(rest, suffix)
	if !ok || len(id) != 36 {
		return false
	}
	_, err := uuid.Parse(id)
	return err == nil
}

// isStaging reports whether name is a staging file name with prefix.
func isStaging(name, prefix string) bool { return isMarked(name, prefix, stagingSuffix) }

// IsScratchName reports whether name is one of the provider's own scratch
// files: a staging file (`.<base>.<uuid>.dsh-tmp`) or the marked copy of an
// in-place rewrite (`.<base>.<uuid>.dsh-rewrite`). Listings skip them
// (contract §3.7 [D9+]: list, glob and grep skip staged copies).
func IsScratchName(name string) bool {
	for _, suffix := range []string{stagingSuffix, rewriteSuffix} {
		rest, ok := strings.CutSuffix(name, suffix)
		if !ok || len(rest) < 1+1+36 || name[0] != '.' || rest[len(rest)-37] != '.' {
			continue
		}
		if _, err := uuid.Parse(rest[len(rest)-36:]); err == nil {
			return true
		}
	}
	return false
}

// createStaging creates and locks a fresh staging file for base in dir with
// permission bits perm (the umask applies). It returns the open file and its
// absolute path.
func (p *Provider) createStaging(dir, base string, perm fs.FileMode) (*os.File, string, error) {
	prefix := stagingPrefix(base)
	for attempt := 1; ; attempt++ {
		path := joinName(dir, prefix+uuid.NewString()+stagingSuffix)
		f, err := p.tree.openFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
		if err != nil {
			return nil, "", err
		}
		if err := flock(f, syscall.LOCK_EX); err != nil {
			f.Close()
			p.tree.remove(path)
			return nil, "", err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			p.tree.remove(path)
			return nil, "", err
		}
		if nlink(fi) > 0 {
			return f, path, nil
		}
		f.Close() // swept before we locked it: take a new name
		if attempt == 8 {
			return nil, "", errors.New("fslocal: staging file removed by concurrent sweeps")
		}
	}
}

// sweep removes the staging files in dir whose writers are gone (an flock
// nobody holds), whatever file they were staging: one left by a kill or a
// race is removed by the next commit in its directory. Marked copies of
// in-place rewrites are not staging files; recovery handles them. It is
// best effort; failures are ignored.
//
// held is dir's descriptor when the caller has it open (the locked
// directory, read once from its start), else nil.
func (p *Provider) sweep(held *os.File, dir string) {
	d := held
	if d == nil {
		var err error
		if d, err = p.tree.openFile(dir, os.O_RDONLY, 0); err != nil {
			return
		}
		defer d.Close()
	}
	names, _ := d.Readdirnames(-1)
	for _, name := range names {
		if strings.HasSuffix(name, stagingSuffix) && IsScratchName(name) {
			p.sweepOne(joinName(dir, name))
		}
	}
}

// sweepOne removes the staging file path if no process holds its lock.
func (p *Provider) sweepOne(path string) {
	const flags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	f, err := p.tree.openFile(path, os.O_RDONLY|flags, 0)
	if err != nil && denied(err) {
		f, err = p.tree.openFile(path, os.O_WRONLY|flags, 0)
	}
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return
	}
	if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // a live writer holds it
	}
	p.tree.remove(path)
}

// flock applies flock(2) operation how to f.
func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), how)
			if !errors.Is(ferr, syscall.EINTR) {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	return ferr
}
