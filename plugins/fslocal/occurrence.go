package fslocal

import (
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// occurrences is what scanOccurrences finds: the count and the starting
// lines of the first fsapi.MaxMatchLines occurrences (the MatchLines of
// editor.md §2.2), and the view offset of the first occurrence (-1: none).
type occurrences struct {
	fsapi.MatchLines
	first int
}

// scanOccurrences counts every occurrence of pat (non-empty) in text,
// overlapping ones included (contract §3.8 step 7, [D15]), in time linear in
// len(text)+len(pat): a Knuth–Morris–Pratt scan that jumps with
// strings.Index whenever no partial match is pending, so a text without
// near-misses is searched at strings.Index speed. Lines are 1 + the number
// of LFs before each occurrence's start.
func scanOccurrences(text, pat string) occurrences {
	m := len(pat)
	border := make([]int, m+1) // border[i]: longest proper border of pat[:i]
	for i, k := 1, 0; i < m; i++ {
		for k > 0 && pat[i] != pat[k] {
			k = border[k]
		}
		if pat[i] == pat[k] {
			k++
		}
		border[i+1] = k
	}
	oc := occurrences{first: -1}
	line, lineAt := 1, 0
	record := func(at int) {
		oc.Count++
		if oc.first < 0 {
			oc.first = at
		}
		if len(oc.Lines) < fsapi.MaxMatchLines {
			line += strings.Count(text[lineAt:at], "\n")
			lineAt = at
			oc.Lines = append(oc.Lines, line)
		}
	}
	for i, q := 0, 0; i < len(text); {
		if q == 0 {
			j := strings.Index(text[i:], pat)
			if j < 0 {
				break
			}
			record(i + j)
			i += j + m
			q = border[m]
			continue
		}
		c := text[i]
		for q > 0 && pat[q] != c {
			q = border[q]
		}
		if pat[q] == c {
			q++
		}
		i++
		if q == m {
			record(i - m)
			q = border[m]
		}
	}
	return oc
}
