package fslocal

import (
	"context"
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

var _ fsapi.Inserter = (*Provider)(nil)

// InsertText inserts req.Text as whole lines after line req.Line of the
// regular file t's LF view, atomically and under t's per-target lock
// (editor.md §2.1). guard nil means unguarded. The checks before the
// insertion and the commit are EditText's (contract §3.8 steps 1–5, 9–11,
// all with op "edit"); a Line outside [0, N] fails FS_NOT_FOUND
// `cannot insert into "<p>": line <k> is out of range (<N> lines)` with a
// *fsapi.LineRangeError cause, and nothing is written. See insertLines for
// the bytes written.
func (p *Provider) InsertText(ctx context.Context, t fsapi.Target, req fsapi.InsertRequest, guard *fsapi.EditGuard) (fsapi.EditOutcome, error) {
	return p.rewrite(ctx, t, guard, false, func(text string) (string, string, error) {
		return insertLines(text, req, t.DisplayPath)
	})
}

// insertLines computes an insertion into a file's text (editor.md §2.1
// steps 2–5): it returns the new file text and the LF view of the old one.
//
// The file has N lines, the LF view's LF count plus one. The inserted text S
// is req.Text with CRLF→LF and then every LF written in the file's dominant
// ending E (CRLF when CRLF pairs outnumber bare LFs over the whole text,
// ties LF; a lone CR stays). For Line < N, S+E goes where line Line+1
// starts (offset 0, or just after the Line-th LF byte); for Line = N, E+S
// goes at the end. Every other byte is kept, the BOM included.
func insertLines(text string, req fsapi.InsertRequest, display string) (data, view string, err error) {
	raw, bom := stripBOM(text)
	view = toLF(raw)
	n := int64(strings.Count(view, "\n")) + 1
	if req.Line < 0 || req.Line > n {
		return "", "", fsapi.ErrLineOutOfRange(display, req.Line, n)
	}
	ending := "\n"
	if crlfDominant(raw) {
		ending = "\r\n"
	}
	s := strings.ReplaceAll(toLF(req.Text), "\n", ending)
	at, insert := len(raw), ending+s
	if req.Line < n {
		at, insert = lineStart(raw, req.Line), s+ending
	}
	var b strings.Builder
	b.Grow(len(text) + len(insert))
	if bom {
		b.WriteString(utf8BOM)
	}
	b.WriteString(raw[:at])
	b.WriteString(insert)
	b.WriteString(raw[at:])
	return b.String(), view, nil
}

// lineStart returns the raw offset just after the k-th LF byte of raw
// (0 for k = 0); raw has at least k LF bytes. An LF ending a CRLF pair is
// one of them, so the offset is where line k+1 of the LF view starts.
func lineStart(raw string, k int64) int {
	at := 0
	for ; k > 0; k-- {
		at += strings.IndexByte(raw[at:], '\n') + 1
	}
	return at
}
