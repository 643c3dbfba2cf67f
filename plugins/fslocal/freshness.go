package fslocal

import (
	"context"
	"errors"
	"io/fs"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// fresh is the version check of a guarded write or edit (contract §3.7
// step 4, §3.8 step 4) with freshness by content ([D24]). fi is the probe
// of t taken under its locks. It returns nil when fi's version is want;
// otherwise nil only when d is not zero, the file's size is d's (and at most
// the digest bound) and its bytes, read now, digest to d: a file touched,
// autosaved or rewritten with the same bytes is not stale. Every other case
// is FS_STALE_VERSION `cannot <op> "<p>": file changed since it was read`.
// A cancelled ctx during the read is FS_ABORTED `<op> aborted`; any other
// failure to read the file is staleness, as before any digest existed. The
// file is read only when its stat differs.
func (p *Provider) fresh(ctx context.Context, t fsapi.Target, op string, want fsapi.Version, d fsapi.Digest, fi fs.FileInfo) error {
	if versionOf(fi) == want {
		return nil
	}
	if d.IsZero() || fi.Size() != d.Size() || d.Size() > p.digestMax {
		return fsapi.ErrChanged(op, t.DisplayPath)
	}
	f, err := p.openRegular(ctx, t, op)
	if err != nil {
		return fsapi.ErrChanged(op, t.DisplayPath)
	}
	defer f.Close()
	data, err := readAll(ctx, f, f.size, op)
	if fe := (*fsapi.Error)(nil); errors.As(err, &fe) && fe.Code == fsapi.CodeAborted {
		return err
	}
	if err != nil || fsapi.DigestOf(data) != d {
		return fsapi.ErrChanged(op, t.DisplayPath)
	}
	return nil
}

// reportDigest hands ctx's digest sink the digest of data, the whole content
// of the version a call returns or observes, when ctx carries a sink and
// data is at most the digest bound ([D24], fsapi.WithDigestSink).
func (p *Provider) reportDigest(ctx context.Context, data string) {
	if sink := fsapi.DigestSink(ctx); sink != nil && int64(len(data)) <= p.digestMax {
		sink(fsapi.DigestOf(data))
	}
}
