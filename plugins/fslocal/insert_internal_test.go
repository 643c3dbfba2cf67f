package fslocal

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// FuzzInsertLines checks the insertion against independent models
// (editor.md §2.1), over texts with CRLF, lone CRs and a BOM:
//   - it never panics; it fails exactly when Line is outside [0, N], N being
//     1 + the LFs of the LF view, with the LineRangeError of (Line, N);
//   - every byte of the old text is kept: the new text is the BOM, then the
//     old text with one run added where line Line+1 starts (after the
//     Line-th LF byte; at the end for Line = N); the run is the text with
//     CRLF→LF and every LF in the dominant ending, plus one ending (after
//     it, or before it at the end);
//   - when nothing has a CR, the new LF view is the old lines with the
//     inserted lines spliced in after line Line.
func FuzzInsertLines(f *testing.F) {
	for _, seed := range []struct {
		text string
		line int64
		ins  string
	}{
		{"one\ntwo\nthree\n", 1, "between"},
		{"one\ntwo", 2, "three"},
		{"", 0, "X"},
		{"", 1, "X"},
		{"a\r\nb\r\n", 1, "x\ny"},
		{"a\r\nb\nc\n", 3, "x\r\n"},
		{"\ufeffa\r\n", 0, "top"},
		{"a\rb\nc\r", 2, "z\r"},
		{"x", -1, "y"},
		{"x\n", 3, "y"},
	} {
		f.Add(seed.text, seed.line, seed.ins)
	}
	f.Fuzz(func(t *testing.T, text string, line int64, ins string) {
		data, view, err := insertLines(text, fsapi.InsertRequest{Line: line, Text: ins}, "/w/f")
		raw, bom := stripBOM(text)
		lfView := toLF(raw)
		n := int64(len(strings.Split(lfView, "\n")))
		if line < 0 || line > n {
			var lr *fsapi.LineRangeError
			require.True(t, errors.As(err, &lr), "out of range must fail: %v", err)
			assert.Equal(t, fsapi.LineRangeError{Line: line, Lines: n}, *lr)
			return
		}
		require.NoError(t, err)
		assert.Equal(t, lfView, view)
		assert.Equal(t, bom, hasBOM(data), "the BOM is kept exactly when there was one")
		newRaw, _ := stripBOM(data)
		// The model: line k+1 starts after the k-th LF byte of raw (the
		// pieces of SplitAfter), and the run goes there.
		ending := "\n"
		if crlfDominant(raw) {
			ending = "\r\n"
		}
		s := strings.ReplaceAll(strings.ReplaceAll(ins, "\r\n", "\n"), "\n", ending)
		at, run := len(raw), ending+s
		if line < n {
			at, run = 0, s+ending
			for _, piece := range strings.SplitAfter(raw, "\n")[:line] {
				at += len(piece)
			}
		}
		require.Equal(t, raw[:at]+run+raw[at:], newRaw, "the old bytes around one inserted run")
		if !strings.Contains(raw+ins, "\r") {
			lines := strings.Split(lfView, "\n")
			want := append(append(append([]string{}, lines[:line]...), strings.Split(ins, "\n")...), lines[line:]...)
			assert.Equal(t, strings.Join(want, "\n"), toLF(newRaw))
		}
	})
}
