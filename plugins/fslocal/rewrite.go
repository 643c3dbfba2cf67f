package fslocal

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// rewrite runs one guarded rewrite of the text file t under t's per-target
// lock, the frame EditText and InsertText share (contract §3.8 steps 1–5
// and 9–11, editor.md §2.1 steps 1, 6 and 7): FS_ABORTED `edit aborted`;
// FS_PROTECTED for a protected file (Refuse);
// FS_STALE_VERSION `cannot edit "<p>": file changed since it was read` when
// t is absent, guarded or not, or when guard's version differs and the file
// does not hold the bytes of guard's Digest ([D24], fresh);
// FS_NOT_REGULAR_FILE; FS_FILE_TOO_LARGE `cannot edit "<p>": file is
// larger than <editMaxBytes> bytes`, by its size, before anything is read;
// the read with FS_PERMISSION_DENIED; FS_NOT_TEXT for a NUL in the first
// 8192 bytes, found before the rest is read, then for a NUL anywhere, then
// for invalid UTF-8; FS_WRITE_FAILED when a killed
// in-place rewrite left a copy that cannot be applied ([D9+]). edit gets the
// whole file text (BOM included) and returns the new text and the LF view of
// the old one, or an error that ends the call with nothing written. With
// dryRun nothing is committed (an absent t is FS_NOT_FOUND `cannot edit
// "<p>": not found`) and the outcome's version is the current one. The new
// text is committed as WriteText commits, under the cross-process lock too
// ([D18]), the version re-probed, and the outcome holds the LF views before
// and after, or, when the text before or after is larger than the diff basis
// bound carried by ctx, BasisOmitted and no views (contract §5.4a [D20]).
// The digest of the new text goes to ctx's digest sink (reportDigest).
//
// Memory: the file's bytes, its LF view (a copy only when it has CRLF
// pairs), the new text and, within the diff basis, its LF view: at most
// twice the file plus twice the new file, whatever the number of spans.
func (p *Provider) rewrite(ctx context.Context, t fsapi.Target, guard *fsapi.EditGuard, dryRun bool, edit func(text string) (data, view string, err error)) (fsapi.EditOutcome, error) {
	if err := ctx.Err(); err != nil {
		return fsapi.EditOutcome{}, fsapi.ErrAborted("edit", err)
	}
	if err := p.Refuse(ctx, t, "edit"); err != nil {
		return fsapi.EditOutcome{}, err
	}
	lk, release, err := p.lockTarget(ctx, t, "edit")
	if err != nil {
		return fsapi.EditOutcome{}, err
	}
	defer release()

	fi, err := p.statKey(t.Key)
	switch {
	case err != nil && absent(err) && dryRun:
		return fsapi.EditOutcome{}, fsapi.ErrNotFound("edit", t.DisplayPath, err)
	case err != nil && absent(err):
		return fsapi.EditOutcome{}, fsapi.ErrChanged("edit", t.DisplayPath)
	case err != nil:
		return fsapi.EditOutcome{}, coded("edit", t.DisplayPath, err)
	case !fi.Mode().IsRegular():
		return fsapi.EditOutcome{}, fsapi.ErrNotRegularFile("edit", t.DisplayPath)
	}
	if fi, err = p.lockInPlace(ctx, lk, t, "edit", fi); err != nil {
		return fsapi.EditOutcome{}, err
	}
	if fi == nil {
		return fsapi.EditOutcome{}, fsapi.ErrChanged("edit", t.DisplayPath)
	}
	if fi, err = p.recoverBefore(ctx, t, "edit", fi); err != nil {
		return fsapi.EditOutcome{}, err
	}
	if guard != nil {
		if err := p.fresh(ctx, t, "edit", guard.Version, guard.Digest, fi); err != nil {
			return fsapi.EditOutcome{}, err
		}
	}
	if fi.Size() > p.editMax {
		return fsapi.EditOutcome{}, fsapi.ErrFileTooLarge("edit", t.DisplayPath, p.editMax)
	}
	if err := ctx.Err(); err != nil {
		return fsapi.EditOutcome{}, fsapi.ErrAborted("edit", err)
	}
	text, src, err := p.readPrior(ctx, t, "edit")
	if err != nil {
		return fsapi.EditOutcome{}, err
	}
	defer src.Close()
	if strings.IndexByte(text, 0) >= 0 {
		return fsapi.EditOutcome{}, fsapi.ErrBinary("edit", t.DisplayPath)
	}
	if !utf8.ValidString(text) {
		return fsapi.EditOutcome{}, fsapi.ErrInvalidUTF8("edit", t.DisplayPath)
	}

	data, view, err := edit(text)
	if err != nil {
		return fsapi.EditOutcome{}, err
	}

	version := versionOf(fi)
	if !dryRun {
		if err := p.commit(ctx, t, change{op: "edit", data: data, prior: fi, src: src, lock: lk}); err != nil {
			return fsapi.EditOutcome{}, err
		}
		if version, err = p.reprobe(t, "edit"); err != nil {
			return fsapi.EditOutcome{}, err
		}
		p.reportDigest(ctx, data)
	}
	out := fsapi.EditOutcome{Version: version}
	if basis := fsapi.DiffBasis(ctx); int64(len(text)) > basis || int64(len(data)) > basis {
		out.BasisOmitted = true // [D20]: no texts past the diff basis
		return out, nil
	}
	after, _ := stripBOM(data)
	out.Before, out.After = view, toLF(after)
	return out, nil
}
