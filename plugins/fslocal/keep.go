package fslocal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// What a staged replace keeps of the file it replaces (contract §3.7,
// [D3], [D19]): the process must be allowed to write the existing file, the
// new file gets its owner (or the replace is refused), its permission bits,
// and its extended attributes in the user namespace and its POSIX access
// ACL.

// writable checks that the process may write the existing file abs, with
// its effective ids (faccessat(W_OK, AT_EACCESS)), through the tree: a
// staged rename needs only write access to the directory, so without this
// check a read-only file, or another user's file, would be replaced
// ([D19]). The error is EACCES (or EPERM, EROFS) as the kernel says.
//
// held is the parent directory's descriptor when the caller has it open
// (the locked directory), else nil.
func (t *tree) writable(held *os.File, abs string) error {
	switch {
	case held != nil:
		return faccess(int(held.Fd()), filepath.Base(abs))
	case t.root == nil && len(abs) < longPath:
		return faccess(unix.AT_FDCWD, abs)
	}
	dir, err := t.openFile(filepath.Dir(abs), os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer dir.Close()
	return faccess(int(dir.Fd()), filepath.Base(abs))
}

// faccess is faccessat(dirfd, name, W_OK, AT_EACCESS) as a *fs.PathError.
func faccess(dirfd int, name string) error {
	if err := unix.Faccessat(dirfd, name, unix.W_OK, unix.AT_EACCESS); err != nil {
		return &fs.PathError{Op: "access", Path: name, Err: err}
	}
	return nil
}

// keepOwner gives f the uid and gid of prior when they differ. A process
// that may not (chown fails with EPERM: another user's file, or a group the
// process is not in) gets that error, which refuses the replace instead of
// silently changing the owner ([D19]).
func keepOwner(f *os.File, prior fs.FileInfo) error {
	uid, gid, ok := owner(prior)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if u, g, _ := owner(fi); u == uid && g == gid {
		return nil
	}
	return f.Chown(uid, gid)
}

// aclAccess is the extended attribute that holds a POSIX access ACL.
const aclAccess = "system.posix_acl_access"

// keepXattrs copies the `user.*` extended attributes and the POSIX access
// ACL of src to dst ([D19]). It must run after the chmod of dst, which an
// ACL overrides. A file system without extended attributes is not an
// error; any other failure is returned.
func keepXattrs(src *regularFile, dst *os.File) error {
	names, err := listXattrs(src.fd)
	if err != nil || len(names) == 0 {
		return err
	}
	for _, name := range names {
		if !strings.HasPrefix(name, "user.") && name != aclAccess {
			continue
		}
		val, err := getXattr(src.fd, name)
		if errors.Is(err, unix.ENODATA) {
			continue // removed meanwhile
		}
		if err != nil {
			return &fs.PathError{Op: "getxattr", Path: src.Name(), Err: err}
		}
		if err := unix.Fsetxattr(int(dst.Fd()), name, val, 0); err != nil && !unsupportedXattr(err) {
			return &fs.PathError{Op: "setxattr", Path: dst.Name(), Err: err}
		}
	}
	return nil
}

// listXattrs returns the extended attribute names of fd; none where the
// file system has no extended attributes.
func listXattrs(fd int) ([]string, error) {
	for {
		n, err := unix.Flistxattr(fd, nil)
		if unsupportedXattr(err) || (err == nil && n == 0) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Flistxattr(fd, buf)
		if errors.Is(err, unix.ERANGE) {
			continue // grew meanwhile
		}
		if err != nil {
			return nil, err
		}
		return strings.Split(strings.TrimSuffix(string(buf[:n]), "\x00"), "\x00"), nil
	}
}

// getXattr returns the value of the extended attribute name of fd.
func getXattr(fd int, name string) ([]byte, error) {
	for {
		n, err := unix.Fgetxattr(fd, name, nil)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Fgetxattr(fd, name, buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}

// unsupportedXattr reports whether err says the file system has no
// extended attributes.
func unsupportedXattr(err error) bool {
	return errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP)
}
