package fslocal

import (
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// nearMiss looks for a near match of old in view, the LF view of a file in
// which old (CRLF→LF) does not occur (docs/editing.md). It tries three
// kinds of difference in turn and reports the first region of the first
// kind that finds one, and how many more regions that kind finds:
//
//  1. fsapi.NearLineNumbers: every line of old starts with read's `<n>: `
//     (or is just `<n>:`) or, on every line, with the editor view's
//     right-aligned number and two spaces; without those prefixes old
//     occurs in view exactly;
//  2. fsapi.NearLineEndings: old occurs once every CR counts as an LF in
//     both (the LF view already reads CRLF as LF; this adds lone CRs);
//  3. fsapi.NearWhitespace: old occurs once, on every line of both, runs of
//     spaces and tabs are one space and those at the line's ends are
//     dropped.
//
// It returns nil when no kind finds a region, and when old has nothing but
// spaces, tabs, CRs and LFs (such a text would match almost anywhere). It
// never changes anything: the caller reports it and writes nothing. The
// cost is linear in len(view)+len(old), with at most one normalised copy of
// each alive at a time, and it is paid only by an edit that fails.
func nearMiss(view, old string) *fsapi.NearMiss {
	if strings.Trim(old, " \t\r\n") == "" {
		return nil
	}
	if stripped, ok := stripLineNumbers(old); ok && strings.Trim(stripped, " \t\r\n") != "" {
		if at, n, end := findAll(view, stripped); n > 0 {
			return nearMissAt(fsapi.NearLineNumbers, view, view, at, end, n)
		}
	}
	if strings.Contains(old, "\r") || strings.Contains(view, "\r") {
		// CR→LF keeps every offset, so the region's lines are counted in
		// view, where a lone CR does not end a line.
		v := strings.ReplaceAll(view, "\r", "\n")
		if at, n, end := findAll(v, strings.ReplaceAll(old, "\r", "\n")); n > 0 {
			return nearMissAt(fsapi.NearLineEndings, view, view, at, end, n)
		}
	}
	if o := squeezeBlanks(old); o != "" {
		if v := squeezeBlanks(view); v != view || o != old {
			// Squeezing keeps every LF, so line numbers in v are view's.
			if at, n, end := findAll(v, o); n > 0 {
				return nearMissAt(fsapi.NearWhitespace, view, v, at, end, n)
			}
		}
	}
	return nil
}

// findAll returns the offset in text of the first occurrence of pat (not
// empty), where it ends, and the number of non-overlapping occurrences
// scanning left to right; n is 0 when there is none.
func findAll(text, pat string) (at, n, end int) {
	at = -1
	for i := 0; ; {
		j := strings.Index(text[i:], pat)
		if j < 0 {
			return at, n, end
		}
		if n == 0 {
			at, end = i+j, i+j+len(pat)
		}
		n++
		i += j + len(pat)
	}
}

// nearMissAt describes the region [at, end) of searched, a text whose LFs
// are view's (view itself, or view squeezed): its lines, as view's lines (at most
// fsapi.NearMissMaxLines of them, each cut to fsapi.NearMissMaxBytes bytes
// and copied, so that the error does not keep the file's text), and the n-1
// further regions.
func nearMissAt(kind fsapi.NearMissKind, view, searched string, at, end, n int) *fsapi.NearMiss {
	first := 1 + strings.Count(searched[:at], "\n")
	last := first + strings.Count(searched[at:max(end-1, at)], "\n")
	nm := &fsapi.NearMiss{Kind: kind, First: first, Last: last, More: n - 1}
	start := 0
	for range first - 1 {
		start += strings.IndexByte(view[start:], '\n') + 1
	}
	for l := first; l <= last && len(nm.Lines) < fsapi.NearMissMaxLines; l++ {
		line := view[start:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line, start = line[:i], start+i+1
		} else {
			start = len(view)
		}
		line = strings.TrimSuffix(line, "\r") // as read shows it (contract §6.7.3)
		nm.Lines = append(nm.Lines, strings.Clone(line[:min(len(line), fsapi.NearMissMaxBytes)]))
	}
	return nm
}

// stripLineNumbers returns s without a line-number prefix on each of its
// lines, and whether every line had one of the same form: read's `<n>: `
// (or a bare `<n>:`, an empty line whose space was trimmed), or the editor
// view's row, spaces, `<n>` and two spaces (or just spaces and `<n>` for
// an empty line). A last line that is empty (s ends with LF) needs none.
func stripLineNumbers(s string) (string, bool) {
	lines := strings.Split(s, "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, strip := range []func(string) (string, bool){readPrefix, viewPrefix} {
		out := make([]string, 0, len(lines))
		for _, l := range lines {
			rest, ok := strip(l)
			if !ok {
				break
			}
			out = append(out, rest)
		}
		if len(out) == len(lines) {
			text := strings.Join(out, "\n")
			if strings.HasSuffix(s, "\n") {
				text += "\n"
			}
			return text, true
		}
	}
	return "", false
}

// readPrefix strips read's `<n>: ` from l (contract §6.7.5), or accepts a
// bare `<n>:` as an empty line.
func readPrefix(l string) (string, bool) {
	d := digits(l)
	if d == 0 || d == len(l) || l[d] != ':' {
		return "", false
	}
	switch rest := l[d+1:]; {
	case rest == "":
		return "", true
	case rest[0] == ' ':
		return rest[1:], true
	}
	return "", false
}

// viewPrefix strips the editor view's row prefix from l (editor.md §8.3):
// spaces, `<n>`, two spaces; or spaces and `<n>` with nothing after, an
// empty line whose spaces were trimmed.
func viewPrefix(l string) (string, bool) {
	sp := len(l) - len(strings.TrimLeft(l, " "))
	d := digits(l[sp:])
	if d == 0 {
		return "", false
	}
	rest := l[sp+d:]
	if after, ok := strings.CutPrefix(rest, "  "); ok {
		return after, true
	}
	return "", strings.TrimRight(rest, " ") == ""
}

// digits returns how many ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// squeezeBlanks returns s with, on every line (split at LF), spaces and
// tabs at the start and end dropped and every inner run of them written as
// one space. LFs are kept one for one; it returns s itself when nothing
// changes.
func squeezeBlanks(s string) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = len(s)
		} else {
			j += i
		}
		line := s[i:j]
		trimmed := strings.Trim(line, " \t")
		if !changed && (trimmed != line || strings.Contains(trimmed, "\t") || strings.Contains(trimmed, "  ")) {
			changed = true
			b.Grow(len(s))
			b.WriteString(s[:i])
		}
		if changed {
			writeSqueezed(&b, trimmed)
			if j < len(s) {
				b.WriteByte('\n')
			}
		}
		i = j + 1
	}
	if !changed {
		return s
	}
	return b.String()
}

// writeSqueezed writes line (no LF, no blank at either end) with every run
// of spaces and tabs as one space.
func writeSqueezed(b *strings.Builder, line string) {
	blank := false
	for i := 0; i < len(line); i++ {
		if c := line[i]; c == ' ' || c == '\t' {
			blank = true
			continue
		}
		if blank {
			b.WriteByte(' ')
			blank = false
		}
		k := i
		for k < len(line) && line[k] != ' ' && line[k] != '\t' {
			k++
		}
		b.WriteString(line[i:k])
		i = k - 1
	}
}
