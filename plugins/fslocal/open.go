package fslocal

import (
	"context"
	"errors"
	"io"
	"io/fs"

	"golang.org/x/sys/unix"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// errNoOpenat2 means the one-call open beneath the root cannot be made here;
// openFD takes the os.Root walk instead.
var errNoOpenat2 = errors.New("openat2 unavailable")

// readFlags open a file or directory for reading without blocking on a FIFO
// and without making a terminal the controlling one.
const readFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC

// openFD is the provider's one way to open a key for reading, a file or
// (with dir) a directory, and returns a plain descriptor, which never joins
// the runtime's poller (a regular file or a directory is never polled).
// Under confinement it is one openat2 beneath the root's descriptor where
// the kernel has it (openat2_linux.go), else the os.Root walk, a component
// at a time, whose file's descriptor it duplicates; without confinement it
// is a plain open of the key, through the handle on "/" past PATH_MAX
// ([D17]). A directory is opened as key + "/." with O_DIRECTORY, so it must
// grant search permission as well as read, and anything else fails
// ENOTDIR without being opened. A confinement refusal is reported as
// errEscapes whichever way it was found (openat2's EXDEV, os.Root's
// "path escapes"); other errors are the raw ones, for the caller's one
// mapping (openError, listError).
func (t *tree) openFD(abs string, dir bool) (int, error) {
	flags := readFlags
	if dir {
		abs, flags = abs+"/.", flags|unix.O_DIRECTORY
	}
	switch n, nerr := t.name(abs); {
	case nerr != nil:
		return -1, nerr
	case t.root == nil && len(abs) < longPath:
		return retryEINTR(func() (int, error) { return unix.Open(abs, flags, 0) })
	case t.root != nil && len(n) < longPath:
		fd, err := t.openat2(n, flags)
		if errors.Is(err, unix.EXDEV) {
			return -1, &fs.PathError{Op: "openat2", Path: abs, Err: errEscapes}
		}
		if !errors.Is(err, errNoOpenat2) {
			return fd, err
		}
	}
	f, err := t.openFile(abs, flags, 0)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	conn, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	nfd, derr := -1, error(nil)
	if err := conn.Control(func(fd uintptr) { nfd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	return nfd, derr
}

// retryEINTR calls open until it is not interrupted.
func retryEINTR(open func() (int, error)) (int, error) {
	for {
		fd, err := open()
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// openError maps a failure to open or examine the file t for op (contract
// §3.5 steps 2–3, §3.7): absent is `cannot <op> "<p>": not found`, a socket
// (ENXIO) `not a regular file`; confinement refusals, EACCES/EPERM and an
// over-long component are coded as everywhere (coded); anything else
// passes through uncoded.
func openError(op string, t fsapi.Target, err error) error {
	switch {
	case absent(err):
		return fsapi.ErrNotFound(op, t.DisplayPath, err)
	case errors.Is(err, unix.ENXIO):
		return fsapi.ErrNotRegularFile(op, t.DisplayPath)
	}
	return coded(op, t.DisplayPath, err)
}

// regularFile is a regular file opened for reading by openRegular, read
// with plain read(2) calls and no buffer.
type regularFile struct {
	fd   int
	name string
	// size is the file's size in bytes when it was opened.
	size int64
}

// openRegular opens the regular file t for reading for op (contract §3.5
// steps 2–3): openFD, then fstat, so a FIFO or device is refused without
// blocking and a file swapped for another type after the caller's stat is
// seen. Errors are openError's, `cannot <op> "<p>": not a regular
// file`, and FS_PROTECTED for a protected file (Refuse, by the opened
// file's identity: a secret for "read", any for a change). For op "read", a file that a killed in-place rewrite left a copy
// of is first finished (or refused) by the recovery, under the target's
// lock, so its torn bytes are never served ([D9+]); a mutation runs that
// recovery itself, under the lock it holds, before it reads the prior file.
func (p *Provider) openRegular(ctx context.Context, t fsapi.Target, op string) (*regularFile, error) {
	f, err := p.openRegularOnce(t, op)
	if err != nil || op != "read" || !copyPending(t.Key) {
		return f, err
	}
	f.Close()
	if _, err := p.recoverBefore(ctx, t, op, nil); err != nil {
		return nil, err
	}
	return p.openRegularOnce(t, op)
}

func (p *Provider) openRegularOnce(t fsapi.Target, op string) (*regularFile, error) {
	fd, err := p.tree.openFD(t.Key, false)
	if err != nil {
		return nil, openError(op, t, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, openError(op, t, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, fsapi.ErrNotRegularFile(op, t.DisplayPath)
	}
	if err := p.refuseOpened(t, op, fileID{dev: st.Dev, ino: st.Ino}); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &regularFile{fd: fd, name: t.Key, size: st.Size}, nil
}

// Read reads up to len(b) bytes; io.EOF at the end.
func (f *regularFile) Read(b []byte) (int, error) {
	for {
		n, err := unix.Read(f.fd, b)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Close closes the descriptor.
func (f *regularFile) Close() error { return unix.Close(f.fd) }

// Name returns the key the file was opened by.
func (f *regularFile) Name() string { return f.name }

// Open opens the regular file t for reading its raw bytes (the
// [fsapi.Opener] capability, search.md §2.2): no BOM removal, no NUL check,
// no UTF-8 validation. It follows symlinks (keys are real paths) and stays
// under the confinement root (openFD).
//
// Errors: FS_ABORTED `read aborted` on entry; FS_NOT_FOUND `cannot read
// "<p>": not found`; FS_NOT_REGULAR_FILE `cannot read "<p>": not a regular
// file`; FS_PERMISSION_DENIED `cannot read "<p>": permission denied`; under
// confinement FS_SANDBOX_DENIED. The returned reader does not check ctx and
// holds one descriptor and no buffer.
func (p *Provider) Open(ctx context.Context, t fsapi.Target) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fsapi.ErrAborted("read", err)
	}
	f, err := p.openRegular(ctx, t, "read")
	if err != nil {
		return nil, err
	}
	return f, nil
}

var _ fsapi.Opener = (*Provider)(nil)
