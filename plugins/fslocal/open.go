package fslocal

import (
	"context"
	"errors"
	"io"
	"io/fs"

	"golang.org/x/sys/unix"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Open opens the regular file t for reading its raw bytes (the
// [fsapi.Opener] capability, search.md §2.2): no BOM removal, no NUL check,
// no UTF-8 validation. It follows symlinks (keys are real paths) and stays
// under the confinement root: one openat2 call resolves the key beneath the
// root's descriptor (RESOLVE_BENEATH, so nothing swapped in can lead
// outside), or, where openat2 is unavailable, the os.Root walk of ReadText.
// The file is opened with O_NONBLOCK and checked with fstat, so a FIFO or
// device never blocks it.
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
	r, _, err := p.openRead(ctx, t)
	return r, err
}

// openRead opens the regular file t for reading as Open does and also
// returns its size in bytes when it was opened, for ReadText's buffer. The
// raw descriptor never joins the runtime's poller, whose set-up on a
// process's first *os.File (epoll_create1, eventfd2, epoll_ctl) was a sixth
// of the samples of a one-shot `dshhost call read`'s tool body (perf, 200
// runs; docs/benchmarks.md, "Fifth stop"), and which a regular file never
// uses.
func (p *Provider) openRead(ctx context.Context, t fsapi.Target) (io.ReadCloser, int64, error) {
	fd, err := p.tree.openRaw(t.Key)
	switch {
	case err == nil:
	case errors.Is(err, errNoRawOpen), errors.Is(err, unix.ELOOP):
		// No openat2, or a dangling link as the key: the general path.
		return p.openGeneral(ctx, t)
	case absent(err):
		return nil, 0, fsapi.ErrNotFound("read", t.DisplayPath, err)
	case errors.Is(err, unix.ENXIO):
		// A socket (swapped in after the caller's stat) cannot be opened.
		return nil, 0, fsapi.ErrNotRegularFile("read", t.DisplayPath)
	case errors.Is(err, unix.EXDEV) || escapes(err):
		return nil, 0, fsapi.ErrOutsideWorkspace(t.DisplayPath, err)
	default:
		return nil, 0, coded("read", t.DisplayPath, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, 0, coded("read", t.DisplayPath, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, 0, fsapi.ErrNotRegularFile("read", t.DisplayPath)
	}
	if copyPending(t.Key) {
		// A killed in-place rewrite left a copy: the general path finishes
		// it or fails, and never serves bytes it may have torn ([D9+]).
		unix.Close(fd)
		return p.openGeneral(ctx, t)
	}
	return rawFile(fd), st.Size, nil
}

// openGeneral is openRead through os.Root, a component at a time.
func (p *Provider) openGeneral(ctx context.Context, t fsapi.Target) (io.ReadCloser, int64, error) {
	f, fi, err := p.openRegular(ctx, t, "read")
	if err != nil {
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// rawFile is an open regular file read with plain read(2) calls: no poller
// registration and no buffer, which a search of thousands of small files
// would otherwise pay for on every open.
type rawFile int

// Read reads up to len(b) bytes; io.EOF at the end.
func (f rawFile) Read(b []byte) (int, error) {
	for {
		n, err := unix.Read(int(f), b)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Err: err}
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Close closes the descriptor.
func (f rawFile) Close() error { return unix.Close(int(f)) }

var _ fsapi.Opener = (*Provider)(nil)
