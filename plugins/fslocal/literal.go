package fslocal

import (
	"strings"

	"github.com/dsh-go/dsh/internal/eol"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// literalEdit computes a literal edit of a file's text (contract §3.8 steps
// 6–8, [D1]): it returns the new file text and the LF view of the old one.
//
// Without ReplaceAll every occurrence of OldString (CRLF→LF) in the LF view
// of text (BOM removed, CRLF→LF) counts, overlapping ones included ([D15]:
// `aa` occurs twice in `aaa`); with ReplaceAll the non-overlapping
// occurrences found left to right count and are replaced. Each matched span
// of the raw text is replaced by NewString (CRLF→LF) with its LFs written in
// the file's dominant style (CRLF when CRLF pairs outnumber bare LFs, ties
// LF); the replacement is literal ($&, $1, backslashes are written as they
// are). Every other byte is kept: the BOM, the endings of untouched lines,
// lone CRs, the final-newline state. Errors: FS_EDIT_NOT_FOUND
// `old_string must be a non-empty string` and `old_string was not found in
// "<display>"`, FS_AMBIGUOUS_EDIT when several matches and not ReplaceAll.
func literalEdit(text string, req fsapi.EditRequest, display string) (data, view string, err error) {
	raw, bom := eol.StripBOM(text)
	v := eol.NewView(raw)
	old := eol.ToLF(req.OldString)
	if old == "" {
		return "", "", fsapi.ErrEmptyOldString()
	}
	matches := find(v.Text, old)
	switch {
	case len(matches) == 0:
		return "", "", fsapi.ErrEditNotFound(display)
	case req.ReplaceAll:
	default:
		if n := countOverlapping(v.Text, old, len(matches)); n > 1 {
			return "", "", fsapi.ErrAmbiguousEdit(n, display)
		}
	}
	insert := eol.ToLF(req.NewString)
	if eol.CRLFDominant(raw) {
		insert = eol.LFToCRLF(insert)
	}
	var b strings.Builder
	b.Grow(len(text) + len(matches)*(len(insert)-len(old)) + len(matches))
	if bom {
		b.WriteString(eol.BOM)
	}
	last := 0
	for _, m := range matches {
		b.WriteString(raw[last:v.Raw(m)])
		b.WriteString(insert)
		last = v.Raw(m + len(old))
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

// countOverlapping returns how many times old occurs in text, overlapping
// occurrences included (contract §3.8 step 7, [D15]): `aa` occurs 2 times in
// `aaa`, 3 times in `aaaa`. nonOverlapping is the count of non-overlapping
// occurrences, already known to the caller. It is linear in
// len(text)+len(old): an old string with no proper border (no prefix that is
// also a suffix) cannot overlap itself, so nonOverlapping is exact;
// otherwise a Knuth-Morris-Pratt scan counts every occurrence.
func countOverlapping(text, old string, nonOverlapping int) int {
	border := borders(old)
	if border[len(old)-1] == 0 {
		return nonOverlapping
	}
	n, k := 0, 0
	for i := 0; i < len(text); i++ {
		for k > 0 && text[i] != old[k] {
			k = border[k-1]
		}
		if text[i] == old[k] {
			k++
		}
		if k == len(old) {
			n++
			k = border[k-1]
		}
	}
	return n
}

// borders returns the Knuth-Morris-Pratt failure table of s (non-empty):
// border[i] is the length of the longest proper prefix of s[:i+1] that is
// also its suffix.
func borders(s string) []int {
	border := make([]int, len(s))
	for i, k := 1, 0; i < len(s); i++ {
		for k > 0 && s[i] != s[k] {
			k = border[k-1]
		}
		if s[i] == s[k] {
			k++
		}
		border[i] = k
	}
	return border
}
