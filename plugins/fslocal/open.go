package fslocal

import (
	"context"
	"io"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Open opens the regular file t for reading its raw bytes (the
// [fsapi.Opener] capability, search.md §2.2): no BOM removal, no NUL check,
// no UTF-8 validation. It follows symlinks (keys are real paths), goes
// through the confinement root handle, and opens with O_NONBLOCK after a
// stat, checking the opened file with fstat, so a FIFO or device never
// blocks it.
//
// Errors: FS_ABORTED `read aborted` on entry; FS_NOT_FOUND `cannot read
// "<p>": not found`; FS_NOT_REGULAR_FILE `cannot read "<p>": not a regular
// file`; FS_PERMISSION_DENIED `cannot read "<p>": permission denied`; under
// confinement FS_SANDBOX_DENIED. The returned reader does not check ctx.
func (p *Provider) Open(ctx context.Context, t fsapi.Target) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fsapi.ErrAborted("read", err)
	}
	f, _, err := p.openRegular(t, "read")
	if err != nil {
		return nil, err
	}
	return f, nil
}

var _ fsapi.Opener = (*Provider)(nil)
