package fslocal

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// errNoRawOpen means openRaw cannot help here; the caller takes the os.Root
// path.
var errNoRawOpen = errors.New("openat2 unavailable")

// rawOpenDisabled makes openRaw report errNoRawOpen, as on a kernel
// without openat2; tests set it to cover the fallback.
var rawOpenDisabled bool

// rawOpenFlags open a file for reading without blocking on a FIFO and
// without making a terminal the controlling one.
const rawOpenFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC

// openRaw opens the key abs read-only and returns its descriptor. Under
// confinement it is one openat2 beneath the root's descriptor with
// RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS: a component that would leave the
// root fails EXDEV. Without confinement it is a plain open of the absolute
// key. A path of longPath bytes or more (past PATH_MAX one call is refused)
// reports errNoRawOpen, so Open takes the component-by-component path
// ([D17]).
func (t *tree) openRaw(abs string) (int, error) {
	return t.openRawWith(abs, rawOpenFlags)
}

// openRawDir is openRaw for a directory: O_DIRECTORY makes anything else
// fail ENOTDIR without opening it (a FIFO never blocks it either way). It
// opens abs + "/.", so the directory must grant search permission as well
// as read, as for ListDir, which opens "." inside it: a directory that can
// be read but not searched fails EACCES here too.
func (t *tree) openRawDir(abs string) (int, error) {
	return t.openRawWith(abs+"/.", rawOpenFlags|unix.O_DIRECTORY)
}

// openRawWith is openRaw with the open flags given.
func (t *tree) openRawWith(abs string, flags int) (int, error) {
	if rawOpenDisabled {
		return -1, errNoRawOpen
	}
	if t.root == nil && len(abs) < longPath {
		return unix.Open(abs, flags, 0)
	}
	n, err := t.name(abs)
	if err != nil {
		return -1, err
	}
	if len(n) >= longPath || t.root == nil {
		// Past PATH_MAX one call is refused (ENAMETOOLONG): the general
		// path walks it a component at a time ([D17]).
		return -1, errNoRawOpen
	}
	dirfd, err := t.rootFD()
	if err != nil {
		return -1, errNoRawOpen
	}
	fd, err := unix.Openat2(dirfd, n, &unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EAGAIN) {
		// EAGAIN: a rename raced a ".." step, and the kernel could not
		// vouch it stayed beneath; the os.Root walk takes it.
		return -1, errNoRawOpen
	}
	return fd, err
}

// rootFD returns a descriptor of the root directory, opened on first use and
// kept until close. Opens relative to it must stay beneath it (openat2
// RESOLVE_BENEATH).
func (t *tree) rootFD() (int, error) {
	t.dirOnce.Do(func() {
		t.dirFD, t.dirErr = openRootDir(t.root, t.base)
		t.dirOpen = t.dirErr == nil
	})
	if t.dirErr != nil {
		return -1, t.dirErr
	}
	return t.dirFD, nil
}

// openRootDir opens the directory the root handle holds as a plain
// descriptor: an open of its canonical path, kept only if it is that very
// directory (same device and inode as the handle's "."), else errNoRawOpen
// (a rename or a swapped-in link since: the os.Root path serves). An
// *os.File of it, as root.Open(".") gives, joins the runtime's poller,
// whose set-up (epoll_create1, eventfd2, epoll_ctl, and fcntl to and from
// O_NONBLOCK, twice) a one-shot `dshhost call read` paid for nothing: a
// directory is never polled.
func openRootDir(root *os.Root, base string) (int, error) {
	fd, err := unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	fi, err := root.Stat(".")
	if err == nil {
		err = unix.Fstat(fd, &st)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	if held, ok := fi.Sys().(*syscall.Stat_t); !ok || held.Dev != st.Dev || held.Ino != st.Ino {
		unix.Close(fd)
		return -1, errNoRawOpen
	}
	return fd, nil
}
