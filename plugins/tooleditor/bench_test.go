package tooleditor_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// The editor against the fs tools on the same files, in one run (bare
// deployment: no policy, so no view or read is needed before an edit):
//
//	go test ./plugins/tooleditor -run '^$' -bench . -benchmem
//
// Each iteration runs every side once, rotating which goes first, and the
// benchmark reports the mean time of each side and the ratios, so machine
// noise hits all sides alike.

// side is one tool call of a comparison.
type side struct {
	name string
	st   *stacktest.Stack
	tool string
	args func(i int) string
}

// compare runs the sides round-robin and reports `ns/<name>` for each and
// `<name>/<base>` for each side but the last, base being the last side.
func compare(b *testing.B, sides []side) {
	b.Helper()
	total := make([]time.Duration, len(sides))
	n := 0
	for b.Loop() {
		for k := range sides {
			j := (n + k) % len(sides)
			sd := sides[j]
			start := time.Now()
			res := sd.st.Call(context.Background(), sd.st.Conversation("bench"), sd.tool, sd.args(n))
			total[j] += time.Since(start)
			if res.IsError {
				b.Fatal(res.Text())
			}
		}
		n++
	}
	base := len(sides) - 1
	for j, sd := range sides {
		b.ReportMetric(float64(total[j].Nanoseconds())/float64(n), "ns/"+sd.name)
		if j != base {
			b.ReportMetric(float64(total[j])/float64(total[base]), sd.name+"/"+sides[base].name)
		}
	}
}

// BenchmarkView2000Lines compares `view` of a 2,000-line file (98 KB) with
// `read` of it, each with its default caps (view: 16000 UTF-16 units of
// rows; read: 2000 lines, 51200 bytes), and a `view` whose cap shows all
// 2,000 rows (view_whole).
func BenchmarkView2000Lines(b *testing.B) {
	var text strings.Builder
	for i := 1; i <= 2000; i++ {
		text.WriteString("line " + strconv.Itoa(i) + ": the quick brown fox jumps over the lazy dog\n")
	}
	st := editorStack(b, true, nil)
	whole := editorStack(b, true, map[string]any{"maxOutputChars": 1 << 20})
	write(b, st, "f.txt", text.String())
	write(b, whole, "f.txt", text.String())
	fixed := func(args string) func(int) string { return func(int) string { return args } }
	compare(b, []side{
		{"view", st, "str_replace_editor", fixed(`{"command":"view","path":"f.txt"}`)},
		{"view_whole", whole, "str_replace_editor", fixed(`{"command":"view","path":"f.txt"}`)},
		{"read", st, "read", fixed(`{"file_path":"f.txt"}`)},
	})
}

// BenchmarkStrReplace10MB compares `str_replace` with `edit` of one unique
// token in two copies of a 10 MB file, swapping it back and forth: each
// call reads, rewrites and fsyncs the whole file and computes the diff meta.
func BenchmarkStrReplace10MB(b *testing.B) {
	line := "the quick brown fox jumps over the lazy dog, 0123456789\n"
	body := strings.Repeat(line, 10<<20/len(line))
	body = body[:len(body)/2] + "TOKEN_A\n" + body[len(body)/2:]
	st := editorStack(b, true, nil)
	write(b, st, "e.txt", body)
	write(b, st, "f.txt", body)
	swap := func(i int) (string, string) {
		if i%2 == 0 {
			return "TOKEN_A", "TOKEN_B"
		}
		return "TOKEN_B", "TOKEN_A"
	}
	compare(b, []side{
		{"str_replace", st, "str_replace_editor", func(i int) string {
			from, to := swap(i)
			return `{"command":"str_replace","path":"e.txt","old_str":"` + from + `","new_str":"` + to + `"}`
		}},
		{"edit", st, "edit", func(i int) string {
			from, to := swap(i)
			return `{"file_path":"f.txt","old_string":"` + from + `","new_string":"` + to + `"}`
		}},
	})
}
