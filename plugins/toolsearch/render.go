package toolsearch

import (
	"strconv"
	"strings"

	"github.com/dsh-go/dsh/internal/quote"
)

// renderGlob returns the text of a glob result (search.md §5.5): `No files
// found`, or the page's paths (quoted by quote.Name) one per line, then the
// footer lines after one empty line.
func renderGlob(v globValue) string {
	var b strings.Builder
	if v.TotalPaths == 0 {
		b.WriteString("No files found")
	} else {
		for i, p := range v.raw {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(quote.Name(p))
		}
	}
	var footer []string
	k := len(v.raw)
	if v.Offset > 1 || k < v.TotalPaths {
		footer = append(footer, showing("paths", v.Offset, k, v.TotalPaths, v.KeptPaths))
	}
	if v.TotalPaths > v.KeptPaths {
		footer = append(footer, "(Only the newest "+strconv.Itoa(v.KeptPaths)+" matching files can be paged; narrow pattern or path to see the others.)")
	}
	if v.Unreadable > 0 {
		footer = append(footer, "(Skipped "+plural(v.Unreadable, "unreadable entry", "unreadable entries")+".)")
	}
	writeFooter(&b, footer)
	return b.String()
}

// showing returns the "Showing" footer line (search.md §5.5, §6.7): the
// page offset..end of total, with the next offset while end < kept.
func showing(noun string, offset, k, total, kept int) string {
	end := 0
	if k > 0 {
		end = offset + k - 1
	}
	s := "(Showing " + noun + " " + strconv.Itoa(offset) + "-" + strconv.Itoa(end) + " of " + strconv.Itoa(total) + "."
	if end < kept {
		return s + " Use offset=" + strconv.Itoa(end+1) + " to continue.)"
	}
	return s + ")"
}

// writeFooter appends one empty line and the footer lines, when there are
// any (search.md §4.7).
func writeFooter(b *strings.Builder, lines []string) {
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n\n")
	b.WriteString(strings.Join(lines, "\n"))
}

// plural returns "<n> <one>" when n is exactly 1, else "<n> <many>".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// renderGrep returns the text of a grep result (search.md §6.7): the
// header, the page's matches grouped by file, and the footer lines.
func renderGrep(v grepValue) string {
	var b strings.Builder
	n, k := v.TotalMatches, len(v.Matches)
	paged := v.Offset > 1 || k < n
	switch {
	case n == 0:
		b.WriteString("No matches found")
	case paged:
		b.WriteString("Found " + strconv.Itoa(k) + " of " + strconv.Itoa(n) + " matches")
	default:
		b.WriteString("Found " + plural(n, "match", "matches"))
	}
	for i, m := range v.Matches {
		if i == 0 || v.raw[i] != v.raw[i-1] {
			b.WriteString("\n\n") // the empty line before the groups, and between them
			b.WriteString(quote.Name(v.raw[i]))
		}
		b.WriteString("\nLine " + strconv.Itoa(m.LineNumber) + ": " + m.Line)
	}
	var footer []string
	if paged {
		footer = append(footer, showing("matches", v.Offset, k, n, n))
	}
	switch v.Stop {
	case stopLimit:
		footer = append(footer, "(Stopped at the "+strconv.Itoa(v.maxKept)+"-match limit after searching "+plural(v.FilesSearched, "file", "files")+"; later lines and files were not searched. Narrow pattern, path, or include to see every match.)")
	case stopTime:
		footer = append(footer, "(Stopped at the "+strconv.FormatInt(v.timeoutMs, 10)+" ms time limit after searching "+plural(v.FilesSearched, "file", "files")+"; later lines and files were not searched. Narrow pattern, path, or include to see every match.)")
	}
	var parts []string
	if v.SkippedLarge > 0 {
		parts = append(parts, plural(v.SkippedLarge, "file", "files")+" larger than "+strconv.FormatInt(v.fileMaxBytes, 10)+" bytes")
	}
	if v.Unreadable > 0 {
		parts = append(parts, plural(v.Unreadable, "unreadable entry", "unreadable entries"))
	}
	if len(parts) > 0 {
		footer = append(footer, "(Skipped "+strings.Join(parts, ", ")+".)")
	}
	writeFooter(&b, footer)
	return b.String()
}
