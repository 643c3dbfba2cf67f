package tooleditor_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// The editor against the fs tools on the same files, in one run (bare
// deployment: no policy, so no view or read is needed before an edit):
//
//	go test ./plugins/tooleditor -run '^$' -bench . -benchmem
//
// BenchmarkView2000Lines compares `view` of a 2,000-line file with `read`
// of it, each with its default caps (view: 16000 UTF-16 units of rows;
// read: 2000 lines, 51200 bytes), and `view` with a cap that shows all
// 2,000 rows (view_whole); BenchmarkStrReplace10MB compares
// `str_replace` with `edit` of one unique token in a 10 MB file (each call
// reads, rewrites and fsyncs the whole file).

func benchStack(b *testing.B) *stacktest.Stack {
	b.Helper()
	return editorStack(b, true, nil)
}

func BenchmarkView2000Lines(b *testing.B) {
	st := benchStack(b)
	var text strings.Builder
	for i := 1; i <= 2000; i++ {
		text.WriteString("line " + strconv.Itoa(i) + ": the quick brown fox jumps over the lazy dog\n")
	}
	write(b, st, "f.txt", text.String())
	whole := editorStack(b, true, map[string]any{"maxOutputChars": 1 << 20})
	write(b, whole, "f.txt", text.String())
	for _, bc := range []struct {
		name string
		st   *stacktest.Stack
		tool string
		args string
	}{
		{"view", st, "str_replace_editor", `{"command":"view","path":"f.txt"}`},
		{"view_whole", whole, "str_replace_editor", `{"command":"view","path":"f.txt"}`},
		{"read", st, "read", `{"file_path":"f.txt"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(text.Len()))
			session := bc.st.Session("bench")
			for b.Loop() {
				if res := bc.st.Call(context.Background(), session, bc.tool, bc.args); res.IsError {
					b.Fatal(res.Text())
				}
			}
		})
	}
}

func BenchmarkStrReplace10MB(b *testing.B) {
	st := benchStack(b)
	line := "the quick brown fox jumps over the lazy dog, 0123456789\n"
	body := strings.Repeat(line, 10<<20/len(line))
	write(b, st, "big.txt", body[:len(body)/2]+"TOKEN_A\n"+body[len(body)/2:])
	session := st.Session("bench")
	for _, bc := range []struct{ name, tool, argsAB, argsBA string }{
		{"str_replace", "str_replace_editor",
			`{"command":"str_replace","path":"big.txt","old_str":"TOKEN_A","new_str":"TOKEN_B"}`,
			`{"command":"str_replace","path":"big.txt","old_str":"TOKEN_B","new_str":"TOKEN_A"}`},
		{"edit", "edit",
			`{"file_path":"big.txt","old_string":"TOKEN_A","new_string":"TOKEN_B"}`,
			`{"file_path":"big.txt","old_string":"TOKEN_B","new_string":"TOKEN_A"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			i := 0
			for b.Loop() {
				args := bc.argsAB
				if i%2 == 1 {
					args = bc.argsBA
				}
				i++
				if res := st.Call(context.Background(), session, bc.tool, args); res.IsError {
					b.Fatal(res.Text())
				}
			}
			if i%2 == 1 { // leave TOKEN_A for the next sub-benchmark
				st.Call(context.Background(), session, bc.tool, bc.argsBA)
			}
		})
	}
}
