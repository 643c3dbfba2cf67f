package fslocal

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openat2Disabled makes openat2 report errNoOpenat2, as on a kernel
// without it; tests set it to cover the os.Root walk.
var openat2Disabled bool

// openat2 opens the name n of the tree (the key relative to the
// confinement root, see tree.name) with flags, in one openat2 call beneath
// the root's descriptor with RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS: a
// component that would leave the root fails EXDEV, so nothing swapped in
// after Resolve can lead outside. It reports errNoOpenat2 where that one
// call cannot be made: no openat2 (ENOSYS), a rename that raced a `..` step
// (EAGAIN: the kernel could not vouch the walk stayed beneath), or no usable
// root descriptor.
func (t *tree) openat2(n string, flags int) (int, error) {
	if openat2Disabled {
		return -1, errNoOpenat2
	}
	dirfd, err := t.rootFD()
	if err != nil {
		return -1, errNoOpenat2
	}
	fd, err := unix.Openat2(dirfd, n, &unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EAGAIN) {
		return -1, errNoOpenat2
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
// directory (same device and inode as the handle's "."), else errNoOpenat2
// (a rename or a swapped-in link since: the os.Root walk serves).
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
		return -1, errNoOpenat2
	}
	return fd, nil
}
