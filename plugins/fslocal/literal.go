package fslocal

import (
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// literalEdit computes a literal edit of a file's text (contract §3.8 steps
// 6–8, [D1]): it returns the new file text and the LF view of the old one.
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
// when there is one, nearMiss), FS_AMBIGUOUS_EDIT when several matches and not ReplaceAll,
// with a *fsapi.MatchLines cause (editor.md §2.2). A maxLen above 0 bounds
// the new text: an edit that would make it longer fails with an
// *editGrowthError before the text is built.
func literalEdit(text string, req fsapi.EditRequest, display string, maxLen int) (data, view string, err error) {
	raw, bom := stripBOM(text)
	v := newLineView(raw)
	old := toLF(req.OldString)
	if old == "" {
		return "", "", fsapi.ErrEmptyOldString()
	}
	var matches []int
	if req.ReplaceAll {
		matches = find(v.Text, old)
	} else {
		occ := scanOccurrences(v.Text, old)
		if occ.Count > 1 {
			return "", "", fsapi.ErrAmbiguousEditAt(&occ.MatchLines, display)
		}
		if occ.Count == 1 {
			matches = []int{occ.first}
		}
	}
	if len(matches) == 0 {
		return "", "", fsapi.ErrEditNotFoundNear(display, nearMiss(v.Text, old))
	}
	insert := toLF(req.NewString)
	// The dominance rule from the view's count of CRLF pairs: a file with
	// none is never CRLF-dominant, and needs no count of its LFs.
	if crlf := v.pairCount(); crlf > 0 && crlf > strings.Count(raw, "\n")-crlf {
		insert = lfToCRLF(insert)
	}
	size := len(text) + len(matches)*(len(insert)-len(old)) // the view's spans; a CRLF span is longer in raw
	if maxLen > 0 && size > maxLen {
		return "", "", &editGrowthError{max: maxLen}
	}
	var b strings.Builder
	b.Grow(size + len(matches))
	if bom {
		b.WriteString(utf8BOM)
	}
	last := 0
	for _, m := range matches {
		b.WriteString(raw[last:v.raw(m)])
		b.WriteString(insert)
		last = v.raw(m + len(old))
	}
	b.WriteString(raw[last:])
	return b.String(), v.Text, nil
}

// find returns the view offsets of the non-overlapping occurrences of old in
// text, scanning left to right: `aa` occurs once in `aaa`, twice in `aaaa`.
func find(text, old string) []int {
	var at []int
	for i := 0; ; {
		j := strings.Index(text[i:], old)
		if j < 0 {
			return at
		}
		at = append(at, i+j)
		i += j + len(old)
	}
}
