package fslocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"strings"
	"unicode/utf8"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// WriteText creates or replaces the regular file t with content under
// intent, atomically and durably, under t's per-target lock (contract §3.7,
// §3.9). A nil intent is an unconditional create-or-overwrite, still
// serialised and atomic.
//
// The checks run in this order: FS_ABORTED `write aborted` (on entry, while
// waiting for the lock, before creating parents, before the commit, and
// before the rename, which leaves the file as it was); FS_PROTECTED for a
// protected file (Refuse); FS_NOT_REGULAR_FILE
// `cannot write "<p>": not a regular file` for an existing non-file (before
// the intent); then the intent: ReplaceIfVersion fails FS_STALE_VERSION
// `cannot write "<p>": file no longer exists` when t is absent (it is not
// recreated) and `cannot write "<p>": file changed since it was read` when
// the version differs, unless the intent's Digest is set and the file holds
// exactly its bytes ([D24]); CreateIfAbsent fails FS_NOT_OBSERVED `cannot
// overwrite existing "<p>" without reading it first` on an existing file.
// EACCES or EPERM anywhere give FS_PERMISSION_DENIED `cannot write "<p>":
// permission denied` ([D7]); a redirection outside the confinement root
// FS_SANDBOX_DENIED. Other failures (ENOSPC, EROFS, ...) pass through
// uncoded, after the staging file is removed.
//
// Bytes: a new file gets content verbatim (missing parents are created
// 0777 minus the umask; the file 0666 minus the umask, [D3]). An existing
// file keeps its leading BOM unless content starts with U+FEFF, and when it
// is CRLF-dominant (more CRLF pairs than bare LFs after the BOM) every bare
// LF of content is written as CRLF ([D2]); a trailing newline is never
// added. It keeps its permission bits and, as root, its owner. Writing
// through a symlink replaces the real file and the link survives; a dangling
// link is replaced by a regular file. A file with several hard links is
// rewritten in place when Config.HardLinks is "preserve" ([D9]).
//
// The outcome's Before is nil for a create and for a prior file that is not
// text (a NUL anywhere, or invalid UTF-8), else its text without BOM and with
// CRLF→LF; After is content with CRLF→LF (not the on-disk bytes). When the
// prior file or content is larger than the diff basis bound carried by ctx
// (fsapi.DiffBasis, 10 MiB by default), Before is nil, After empty and
// BasisOmitted true; a larger prior file is then streamed for its BOM and
// dominance, 64 KiB at a time, and never held whole (contract §5.4a [D20]).
// A ctx digest sink gets the digest of the bytes written when they are at
// most the digest bound ([D24]).
func (p *Provider) WriteText(ctx context.Context, t fsapi.Target, content string, intent *fsapi.WriteIntent) (fsapi.WriteOutcome, error) {
	if err := ctx.Err(); err != nil {
		return fsapi.WriteOutcome{}, fsapi.ErrAborted("write", err)
	}
	if err := p.Refuse(ctx, t, "write"); err != nil {
		return fsapi.WriteOutcome{}, err
	}
	lk, release, err := p.lockTarget(ctx, t, "write")
	if err != nil {
		return fsapi.WriteOutcome{}, err
	}
	defer release()

	fi, err := p.statKey(t.Key)
	switch {
	case err != nil && absent(err):
		fi = nil
	case err != nil:
		return fsapi.WriteOutcome{}, coded("write", t.DisplayPath, err)
	case !fi.Mode().IsRegular():
		return fsapi.WriteOutcome{}, fsapi.ErrNotRegularFile("write", t.DisplayPath)
	default:
		if fi, err = p.lockInPlace(ctx, lk, t, "write", fi); err != nil {
			return fsapi.WriteOutcome{}, err
		}
		if fi == nil {
			break // gone while waiting for the inode lock: a create
		}
		if fi, err = p.recoverBefore(ctx, t, "write", fi); err != nil {
			return fsapi.WriteOutcome{}, err
		}
	}
	if err := p.checkIntent(ctx, t, intent, fi); err != nil {
		return fsapi.WriteOutcome{}, err
	}

	out := fsapi.WriteOutcome{Operation: fsapi.OperationCreate}
	data := content
	var src *regularFile // the prior file, when read whole
	basis := fsapi.DiffBasis(ctx)
	if fi != nil {
		out.Operation = fsapi.OperationUpdate
		if fi.Size() > basis {
			// [D20]: past the diff basis the prior file is only streamed
			// for its BOM and line-ending dominance, never held whole.
			shape, err := p.scanPrior(ctx, t, "write")
			if err != nil {
				return fsapi.WriteOutcome{}, err
			}
			data, out.BasisOmitted = shape.encode(content), true
		} else {
			prior, f, err := p.readPrior(ctx, t, "write")
			if err != nil {
				return fsapi.WriteOutcome{}, err
			}
			defer f.Close()
			src = f
			if strings.IndexByte(prior, 0) < 0 && utf8.ValidString(prior) {
				before := toLF(strings.TrimPrefix(prior, utf8BOM))
				out.Before = &before
			}
			data = encodeLike(prior, content)
		}
	}
	if out.BasisOmitted || int64(len(content)) > basis {
		out.Before, out.BasisOmitted = nil, true
	} else {
		out.After = toLF(content)
	}
	c := change{op: "write", data: data, prior: fi, src: src, lock: lk,
		exclusive: intent != nil && intent.Kind == fsapi.CreateIfAbsent}
	if err := p.commit(ctx, t, c); err != nil {
		return fsapi.WriteOutcome{}, err
	}
	if out.Version, err = p.reprobe(t, "write"); err != nil {
		return fsapi.WriteOutcome{}, err
	}
	p.reportDigest(ctx, data)
	return out, nil
}

// checkIntent applies a write intent to the probed state (contract §3.7
// step 4, with freshness by content [D24]); fi is nil when the target is
// absent.
func (p *Provider) checkIntent(ctx context.Context, t fsapi.Target, intent *fsapi.WriteIntent, fi fs.FileInfo) error {
	if intent == nil {
		return nil
	}
	switch intent.Kind {
	case fsapi.ReplaceIfVersion:
		if fi == nil {
			return fsapi.ErrNoLongerExists(t.DisplayPath)
		}
		return p.fresh(ctx, t, "write", intent.Version, intent.Digest, fi)
	case fsapi.CreateIfAbsent:
		if fi != nil {
			return fsapi.ErrOverwriteUnread(t.DisplayPath)
		}
	default:
		return fmt.Errorf("fslocal: unknown write intent kind %d", int(intent.Kind))
	}
	return nil
}

// encodeLike returns the bytes that write content over a file whose bytes
// are prior (contract §3.7 step 6, [D2]): prior's BOM is kept unless content
// brings U+FEFF itself, and a CRLF-dominant prior turns content's bare LFs
// into CRLF. prior is inspected as bytes, text or not.
func encodeLike(prior, content string) string {
	return shapeOf(prior).encode(content)
}

// readPrior reads the whole existing file t for a mutation op ("write" or
// "edit"): FS_ABORTED `<op> aborted` between chunks, permission errors
// worded for op. For "edit" the leading sniffLen bytes come first: a NUL
// there is FS_NOT_TEXT `cannot edit "<p>": binary file` before the rest is
// read, so a large binary file (a sparse disk image) is answered at once.
// It returns the file still open (the commit copies its extended
// attributes from it); the caller closes it.
func (p *Provider) readPrior(ctx context.Context, t fsapi.Target, op string) (string, *regularFile, error) {
	f, err := p.openRegular(ctx, t, op)
	if err != nil {
		return "", nil, err
	}
	var r io.Reader = f
	if op == "edit" {
		head := make([]byte, sniffLen)
		n, err := io.ReadFull(f, head)
		switch {
		case err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
			f.Close()
			return "", nil, coded(op, t.DisplayPath, err)
		case bytes.IndexByte(head[:n], 0) >= 0:
			f.Close()
			return "", nil, fsapi.ErrBinary(op, t.DisplayPath)
		}
		r = io.MultiReader(bytes.NewReader(head[:n]), f)
	}
	text, err := readAll(ctx, r, f.size, op)
	if err != nil {
		f.Close()
		return "", nil, coded(op, t.DisplayPath, err)
	}
	return text, f, nil
}
