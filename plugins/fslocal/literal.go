package fslocal

import (
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// literalEdit computes a literal edit of a file's text (contract §3.8 steps
// 6–8, [D1]): it returns the new file text, the LF view of the old one and
// the number of spans replaced.
//
// Matching looks for OldString (CRLF→LF) in the LF view of text (BOM
// removed, CRLF→LF): without ReplaceAll every occurrence counts, overlapping
// ones included ([D15]: `aa` occurs twice in `aaa`), and the one occurrence
// is the span replaced; with ReplaceAll the spans are the non-overlapping
// occurrences found left to right (`aa`: once in `aaa`). Each matched span
// of the raw text is replaced by NewString (CRLF→LF) with its LFs written in
// the file's dominant style (CRLF when CRLF pairs outnumber bare LFs, ties
// LF); the replacement is literal ($&, $1, backslashes are written as they
// are). Every other byte is kept: the BOM, the endings of untouched lines,
// lone CRs, the final-newline state. Errors: FS_EDIT_NOT_FOUND
// `old_string must be a non-empty string` and `old_string was not found in
// "<display>"` (with the lines of a near match and a *fsapi.NearMiss cause
// when there is one, nearMiss), FS_AMBIGUOUS_EDIT when several matches and
// not ReplaceAll, with a *fsapi.MatchLines cause (editor.md §2.2). A maxLen
// above 0 bounds the new text: an edit that would make it longer fails
// with an *editGrowthError before the text is built.
//
// Memory: the view (a copy only when text has CRLF pairs) and the new text,
// sized once from the count of spans; the spans are found again while the
// new text is written, never listed, so replace_all of a one-byte string
// costs what a one-span edit does.
func literalEdit(text string, req fsapi.EditRequest, display string, maxLen int) (data, view string, replaced int, err error) {
	raw, bom := stripBOM(text)
	v := newLineView(raw)
	old := toLF(req.OldString)
	if old == "" {
		return "", "", 0, fsapi.ErrEmptyOldString()
	}
	n, at := 0, -1
	if req.ReplaceAll {
		if n = strings.Count(v.Text, old); n > 0 {
			at = strings.Index(v.Text, old)
		}
	} else {
		occ := scanOccurrences(v.Text, old)
		if occ.Count > 1 {
			return "", "", 0, fsapi.ErrAmbiguousEditAt(&occ.MatchLines, display)
		}
		n, at = occ.Count, occ.first
	}
	if n == 0 {
		return "", "", 0, fsapi.ErrEditNotFoundNear(display, nearMiss(v.Text, old))
	}
	insert := toLF(req.NewString)
	// The dominance rule from the view's count of CRLF pairs: a file with
	// none is never CRLF-dominant, and needs no count of its LFs.
	if crlf := v.pairCount(); crlf > 0 && crlf > strings.Count(raw, "\n")-crlf {
		insert = lfToCRLF(insert)
	}
	// An upper bound: each raw span is at least len(old) bytes long.
	size := len(text) + n*(len(insert)-len(old))
	if maxLen > 0 && size > maxLen {
		return "", "", 0, &editGrowthError{max: maxLen}
	}
	var b strings.Builder
	b.Grow(size)
	if bom {
		b.WriteString(utf8BOM)
	}
	c := v.cursor()
	last := 0
	for i := 0; ; i++ {
		b.WriteString(raw[last:c.at(at)])
		b.WriteString(insert)
		last = c.at(at + len(old))
		if i+1 == n {
			break
		}
		at += len(old) + strings.Index(v.Text[at+len(old):], old)
	}
	b.WriteString(raw[last:])
	return b.String(), v.Text, n, nil
}
