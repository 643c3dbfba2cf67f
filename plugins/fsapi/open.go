package fsapi

import (
	"context"
	"io"
)

// Opener is the optional capability of reading a regular file's raw bytes
// (search.md §2.2): no BOM removal, no NUL check, no UTF-8 validation. Open
// follows symlinks (every key is a real path) and never blocks on a FIFO or
// device.
//
// Errors: FS_ABORTED `read aborted` (on entry); FS_NOT_FOUND `cannot read
// "<p>": not found`; FS_NOT_REGULAR_FILE `cannot read "<p>": not a regular
// file`; FS_PERMISSION_DENIED `cannot read "<p>": permission denied`; under
// confinement FS_SANDBOX_DENIED. The reader does not check ctx: the
// consumer does, between reads.
type Opener interface {
	Open(ctx context.Context, t Target) (io.ReadCloser, error)
}
