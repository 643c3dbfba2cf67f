package fsapi

import "context"

// MultiEditor is the optional capability of several literal edits of one
// file as one mutation (toolfs's multi_edit, docs/editing.md). A provider
// without it is still a valid fs provider; multi_edit then is not offered.
//
// EditTexts runs EditText's checks and frame (contract §3.8 steps 1–5 and
// 9–11: the lock, the guard, freshness by content [D24], the text checks)
// once, then applies the edits in order, each to the result of the one
// before it, each with EditText's rules (one match unless ReplaceAll,
// overlapping occurrences counted [D15], the file's dominant ending for
// inserted text and every other byte kept [D1]). The first edit that fails
// fails the call with nothing written: its error (FS_EDIT_NOT_FOUND, with a
// *NearMiss cause when it nearly matched; FS_AMBIGUOUS_EDIT) is wrapped in
// an *EditStepError that names its index; so is a provider's own bound on
// the text's growth (fslocal: twice the file, or the file plus 16 MiB). The outcome is EditText's for
// the whole change: the version after it, the LF views before the first
// edit and after the last, and Replacements summed over the edits.
//
// With DryRun the edits are computed the same way and nothing is written:
// the outcome's Version is the file's current one, and a target that does
// not exist fails FS_NOT_FOUND `cannot edit "<p>": not found`.
type MultiEditor interface {
	EditTexts(ctx context.Context, t Target, req MultiEditRequest, guard *EditGuard) (EditOutcome, error)
}

// MultiEditRequest is the edits of one EditTexts call, applied in order,
// and whether to only compute their outcome (DryRun).
type MultiEditRequest struct {
	Edits  []EditRequest
	DryRun bool
}

// EditStepError is the error of an EditTexts call whose edit Index
// (0-based) failed; Err is that edit's error, which errors.As finds (its
// code is the call's).
type EditStepError struct {
	Index int
	Err   error
}

// Error returns the edit's own message.
func (e *EditStepError) Error() string { return e.Err.Error() }

// Unwrap returns the edit's error.
func (e *EditStepError) Unwrap() error { return e.Err }
