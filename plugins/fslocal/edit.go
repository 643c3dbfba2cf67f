package fslocal

import (
	"context"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// EditText replaces literal text in the regular file t, atomically and under
// t's per-target lock (contract §3.8, §3.9). guard nil means unguarded.
//
// The checks run in this order: FS_ABORTED `edit aborted` (on entry, while
// waiting for the lock, before and during the read, and before the commit,
// which leaves the file as it was); FS_STALE_VERSION `cannot edit "<p>":
// file changed since it was read` when t is absent, guarded or not;
// FS_NOT_REGULAR_FILE `cannot edit "<p>": not a regular file`;
// FS_STALE_VERSION (same message) when guard's version differs and the file
// does not hold exactly the bytes of guard's Digest ([D24]), checked before
// matching; FS_PERMISSION_DENIED `cannot edit "<p>": permission
// denied` ([D7]); FS_NOT_TEXT `cannot edit "<p>": binary file` for a NUL
// anywhere, then `cannot edit "<p>": invalid UTF-8 text`; FS_EDIT_NOT_FOUND
// `old_string must be a non-empty string` when OldString is empty after
// CRLF→LF; FS_EDIT_NOT_FOUND `old_string was not found in "<p>"`, followed
// by the lines of a near match when there is one (a *fsapi.NearMiss cause,
// docs/editing.md);
// FS_AMBIGUOUS_EDIT `old_string matched <N> times in "<p>"; provide a more
// specific old_string or set replace_all to true` when it matches more than
// once without ReplaceAll. A redirection outside the confinement root fails
// FS_SANDBOX_DENIED; other failures pass through uncoded.
//
// Matching counts non-overlapping occurrences, left to right, of OldString
// (CRLF→LF) in the file's LF view (BOM removed, CRLF→LF). Each matched span
// of the raw file is replaced by NewString (CRLF→LF) with its LFs written in
// the file's dominant style (CRLF when CRLF pairs outnumber bare LFs, ties
// LF); the replacement is literal. Every other byte is kept: the BOM, the
// endings of untouched lines, lone CRs, the final-newline state ([D1]). The
// commit is that of WriteText (in place for a multi-link file under
// "preserve", else a staged replace keeping mode and owner). The outcome
// holds the new version, the number of spans replaced, and the LF views
// before and after, unless the file before or after is larger than the diff
// basis bound carried by ctx (fsapi.DiffBasis): then the views are empty and
// BasisOmitted is true (contract §5.4a [D20]). A no-op edit still rewrites
// the file and changes its version. A ctx digest sink gets the digest of
// the new bytes when they are at most the digest bound ([D24]).
func (p *Provider) EditText(ctx context.Context, t fsapi.Target, req fsapi.EditRequest, guard *fsapi.EditGuard) (fsapi.EditOutcome, error) {
	out, _, err := p.editTexts(ctx, t, []fsapi.EditRequest{req}, guard, false, nil)
	return out, err
}
