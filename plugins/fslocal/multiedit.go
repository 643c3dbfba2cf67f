package fslocal

import (
	"context"
	"strconv"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// EditTexts applies req's edits to the regular file t in order, each to the
// result of the one before it, as one mutation under t's locks and one
// guard (the [fsapi.MultiEditor] capability, docs/editing.md). Each edit
// follows EditText's rules (contract §3.8 steps 6–8: one match unless
// ReplaceAll [D15], the file's dominant ending for inserted text, every
// other byte kept [D1]); the checks before them and the commit are
// EditText's, once. The first edit that fails fails the call with its
// error (FS_EDIT_NOT_FOUND, with the lines of a near match when there is
// one; FS_AMBIGUOUS_EDIT) wrapped in an *fsapi.EditStepError naming its
// index, and nothing is written. The outcome holds the version after the
// commit, the LF views before the first edit and after the last (bounded
// by the diff basis as EditText's), Replacements summed over the edits,
// and the digest of the new bytes goes to a ctx digest sink ([D24]).
//
// With req.DryRun the same checks and edits run, under t's locks, and
// nothing is written: the outcome's version is the current one,
// nothing is reported to a digest sink, and an absent t is FS_NOT_FOUND
// `cannot edit "<p>": not found`. No edit may make the text longer than
// the larger of twice the file's text and the file's text plus 16 MiB
// (multiEditGrowth): one that would fails, before the text is built, with
// the uncoded `the edits would make the file larger than <N> bytes (at most
// twice its size, or its size plus 16 MiB)`, so that a chain of replace_all
// edits cannot grow a small file without bound. An empty req.Edits changes nothing and
// still rewrites the file (as a no-op edit does); callers refuse it first.
func (p *Provider) EditTexts(ctx context.Context, t fsapi.Target, req fsapi.MultiEditRequest, guard *fsapi.EditGuard) (fsapi.EditOutcome, error) {
	out, failed, err := p.editTexts(ctx, t, req.Edits, guard, req.DryRun, multiEditGrowth)
	if err != nil && failed >= 0 {
		return fsapi.EditOutcome{}, &fsapi.EditStepError{Index: failed, Err: err}
	}
	return out, err
}

// multiEditGrowth is the bound of EditTexts's text: twice the file's text,
// or the file's text plus 16 MiB when that is more.
func multiEditGrowth(size int) int { return max(2*size, size+16<<20) }

// editGrowthError is an edit that would make the text longer than max
// bytes (multiEditGrowth); it carries no code.
type editGrowthError struct{ max int }

func (e *editGrowthError) Error() string {
	return "the edits would make the file larger than " + strconv.Itoa(e.max) + " bytes (at most twice its size, or its size plus 16 MiB)"
}

// editTexts is the one edit path of EditText and EditTexts: rewrite with
// the edits applied in turn by literalEdit, each bounded by growth of the
// file's text length when growth is not nil. failed is the index of the
// edit whose matching failed (-1: none did; err, if any, is the frame's).
func (p *Provider) editTexts(ctx context.Context, t fsapi.Target, edits []fsapi.EditRequest, guard *fsapi.EditGuard, dryRun bool, growth func(int) int) (out fsapi.EditOutcome, failed int, err error) {
	replaced, failed := 0, -1
	out, err = p.rewrite(ctx, t, guard, dryRun, func(text string) (string, string, error) {
		before, maxLen := "", 0
		if growth != nil {
			maxLen = growth(len(text))
		}
		for i, req := range edits {
			data, view, n, err := literalEdit(text, req, t.DisplayPath, maxLen)
			if err != nil {
				failed = i
				return "", "", err
			}
			if i == 0 {
				before = view
			}
			replaced += n
			text = data
		}
		if len(edits) == 0 {
			raw, _ := stripBOM(text)
			before = toLF(raw)
		}
		return text, before, nil
	})
	if err != nil {
		return fsapi.EditOutcome{}, failed, err
	}
	out.Replacements = replaced
	return out, -1, nil
}

var _ fsapi.MultiEditor = (*Provider)(nil)
