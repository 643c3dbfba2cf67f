package toolfs

import (
	"context"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// mutationContext is the context of a write's or an edit's provider call:
// ctx with the activation's diff basis (contract §5.4a [D20]), the call's
// progress reporter, and a digest sink that stores the digest of the bytes
// written in *digest, for the observation that follows ([D24]).
func (ts *toolset) mutationContext(ctx context.Context, exec *tools.Exec, digest *fsapi.Digest) context.Context {
	ctx = fsapi.WithBytesProgress(fsapi.WithDiffBasis(ctx, ts.cfg.DiffBasisMaxBytes), exec.Progress().Bytes("bytes written"))
	return fsapi.WithDigestSink(ctx, func(d fsapi.Digest) { *digest = d })
}
