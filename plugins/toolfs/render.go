package toolfs

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/dsh-go/dsh/internal/quote"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// renderList returns the text of a list result (contract §6.6.4): the
// envelope with `<path>` through quote.Name, then one line per entry (its
// rendered name and the suffix `/` for a directory, nothing for a file, `@`
// for other, outside any quotes), an empty line and the footer; an empty page
// shows the footer alone.
func renderList(p listPage) string {
	var b strings.Builder
	n := 128 + 2*len(p.Path) // the tags, the footer and the path, quoted or not
	for _, e := range p.Entries {
		n += len(e.raw) + 2
	}
	b.Grow(n) // one buffer, not one per doubling
	b.WriteString("<path>")
	b.WriteString(quote.Name(p.Path))
	b.WriteString("</path>\n<type>directory</type>\n<content>\n")
	for _, e := range p.Entries {
		b.WriteString(e.renderedName())
		switch e.Type {
		case fsapi.TypeDirectory:
			b.WriteByte('/')
		case fsapi.TypeFile:
		default:
			b.WriteByte('@')
		}
		b.WriteByte('\n')
	}
	if len(p.Entries) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(listFooter(p))
	b.WriteString("\n</content>")
	return b.String()
}

// listFooter returns the footer of a list page, first match wins (contract
// §6.6.4): `(Empty directory)`; the "Showing entries" form when the offset is
// above 1 or the page is shorter than the listing; else `(<N> entry: …)` or
// `(<N> entries: …)`.
func listFooter(p listPage) string {
	total := p.TotalEntries
	if total == 0 {
		return "(Empty directory)"
	}
	end := 0
	if len(p.Entries) > 0 {
		end = p.Offset + len(p.Entries) - 1
	}
	comp := composition(p.Counts)
	if p.Offset > 1 || len(p.Entries) < total {
		s := "(Showing entries " + strconv.Itoa(p.Offset) + "-" + strconv.Itoa(end) + " of " + strconv.Itoa(total) + ": " + comp + "."
		if end < total {
			return s + " Use offset=" + strconv.Itoa(end+1) + " to continue.)"
		}
		return s + ")"
	}
	return "(" + plural(total, "entry", "entries") + ": " + comp + ")"
}

// composition spells the counts of a listing: `<d> directory|directories,
// <f> file|files`, then `, <o> other` when o > 0 (never pluralised).
// Contract §6.6.4.
func composition(c entryCounts) string {
	s := plural(c.Directories, "directory", "directories") + ", " + plural(c.Files, "file", "files")
	if c.Other > 0 {
		s += ", " + strconv.Itoa(c.Other) + " other"
	}
	return s
}

// plural returns "<n> <one>" when n is exactly 1, else "<n> <many>".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// renderRead returns the text of a read result (contract §6.7.5). limit is
// the call's limit, or readLimit when none was given; it decides whether the
// window is reported as capped. The display path is shown with only the
// [D11] replacement of invalid bytes, never quoted.
func renderRead(v readValue, limit int) string {
	footer := readFooter(v, limit)
	size := len(v.Path) + len(footer) + 64 // the tags
	for _, l := range v.Lines {
		size += len(l.Text) + 24 // the number, ": " and the newline
	}
	// One buffer, two appends a line (the text, and the newline with the
	// next number and ": "), instead of a strings.Builder write per piece,
	// which dominated a 2,000-line render.
	b := make([]byte, 0, size)
	b = append(b, "<path>"...)
	b = append(b, fsapi.Display(v.Path)...)
	b = append(b, "</path>\n<type>file</type>\n<content>\n"...)
	var number lineNumber
	for i, l := range v.Lines {
		b = append(b, number.set(l.Number, i > 0)...)
		b = append(b, l.Text...)
	}
	if len(v.Lines) > 0 {
		b = append(b, "\n\n"...)
	}
	b = append(b, footer...)
	b = append(b, "\n</content>"...)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// lineNumber renders the line numbers of a window, which count up by one:
// the next number's digits are the last one's, incremented, rather than a
// division per digit (AppendInt was a tenth of a 2,000-line render).
type lineNumber struct {
	n int
	// buf holds a newline, n's decimal digits and ": ", ending at its end;
	// the digits start at start (at least 2: int has at most 19 digits).
	buf   [23]byte
	start int
}

// set returns "<n>: " (n ≥ 0), after a newline when newline is set; the
// bytes are valid until the next call.
func (d *lineNumber) set(n int, newline bool) []byte {
	const end = len(lineNumber{}.buf) - 2 // the digits end here, ": " follows
	if n == d.n+1 && d.start > 0 && n > 0 {
		d.n = n
		i := end - 1
		for ; i >= d.start && d.buf[i] == '9'; i-- {
			d.buf[i] = '0'
		}
		if i < d.start {
			d.start--
			d.buf[d.start] = '1'
			d.buf[d.start-1] = '\n'
		} else {
			d.buf[i]++
		}
	} else {
		var fresh [20]byte
		digits := strconv.AppendInt(fresh[:0], int64(n), 10)
		d.n, d.start = n, end-len(digits)
		copy(d.buf[d.start:], digits)
		d.buf[d.start-1], d.buf[end], d.buf[end+1] = '\n', ':', ' '
	}
	if newline {
		return d.buf[d.start-1:]
	}
	return d.buf[d.start:]
}

// readFooter returns the footer of a read window, first match wins (contract
// §6.7.5). endLine is the last line's number, or max(0, offset−1) when there
// are none; the window is capped when its total is not stated (the byte cap
// tripped, §6.7.5a [D26]) or it holds fewer than limit lines and endLine <
// totalLines.
func readFooter(v readValue, limit int) string {
	endLine, capped := windowEnd(v, limit)
	off, end, next := strconv.Itoa(v.Offset), strconv.Itoa(endLine), strconv.Itoa(endLine+1)
	switch {
	case capped:
		return "(Output capped. Showing lines " + off + "-" + end + ". Use offset=" + next + " to continue.)"
	case endLine < *v.TotalLines:
		return "(Showing lines " + off + "-" + end + " of " + strconv.Itoa(*v.TotalLines) + ". Use offset=" + next + " to continue.)"
	}
	return "(End of file - total " + strconv.Itoa(*v.TotalLines) + " lines)"
}

// windowEnd returns a read window's endLine, the last line's number or
// max(0, offset−1) when there are none, and whether it is capped: no total
// stated [D26], or fewer than limit lines and endLine < totalLines
// (contract §6.7.5).
func windowEnd(v readValue, limit int) (endLine int, capped bool) {
	endLine = max(0, v.Offset-1)
	if n := len(v.Lines); n > 0 {
		endLine = v.Lines[n-1].Number
	}
	return endLine, v.TotalLines == nil || len(v.Lines) < limit && endLine < *v.TotalLines
}

// renderWrite returns the text of a write result: five lines saying
// `Created file` or `Updated file`; the content is never echoed (contract
// §6.8 Rendering).
func renderWrite(displayPath string, op fsapi.Operation) string {
	what := "Created file"
	if op == fsapi.OperationUpdate {
		what = "Updated file"
	}
	return "<path>" + fsapi.Display(displayPath) + "</path>\n<type>file</type>\n<content>\n" + what + "\n</content>"
}

// renderEdit returns the text of an edit result (contract §6.9 Rendering).
// replaceAll is the replace_all argument: it decides the wording even when
// there was only one occurrence.
func renderEdit(displayPath string, replaceAll bool) string {
	if replaceAll {
		return "The file " + fsapi.Display(displayPath) + " has been updated. All occurrences were successfully replaced."
	}
	return "The file " + fsapi.Display(displayPath) + " has been updated successfully."
}
