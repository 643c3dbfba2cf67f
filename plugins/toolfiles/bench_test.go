package toolfiles_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// BenchmarkRename compares a rename by move (a read with limit 1, which
// is all the policy needs, then move) with the rename a model does without
// it (read the whole file, write it under the new name, and, with no
// delete either, leave the old one): wall time per rename, and the
// model-visible bytes that cross the conversation (the calls' arguments
// plus the results' text), which is what the model pays in tokens. Run:
//
//	go test ./plugins/toolfiles -run '^$' -bench Rename -benchtime 20x
func BenchmarkRename(b *testing.B) {
	lines := make([]string, 20000) // a 1.3 MB source file
	for i := range lines {
		lines[i] = "line " + strconv.Itoa(i) + " of a generated source file, long enough to be typical"
	}
	content := strings.Join(lines, "\n") + "\n"
	st := stacktest.New(b, stacktest.Options{ToolFS: map[string]any{"readLimit": 20000, "readMaxBytes": 10 << 20}})
	conv := st.Conversation("bench")
	call := func(tool string, args map[string]any) int {
		raw, _ := json.Marshal(args)
		res := st.Call(b.Context(), conv, tool, string(raw))
		if res.IsError {
			b.Fatal(res.Text())
		}
		return len(raw) + len(res.Text())
	}
	n := 0
	for _, way := range []string{"move", "read+write"} {
		b.Run(way, func(b *testing.B) {
			traffic := 0
			for range b.N {
				n++
				from, to := "f"+strconv.Itoa(n)+".go", "g"+strconv.Itoa(n)+".go"
				if err := os.WriteFile(filepath.Join(st.W, from), []byte(content), 0o644); err != nil {
					b.Fatal(err)
				}
				if way == "move" {
					traffic += call("read", map[string]any{"file_path": from, "limit": 1})
					traffic += call("move", map[string]any{"source": from, "destination": to})
					continue
				}
				traffic += call("read", map[string]any{"file_path": from, "limit": 20000})
				traffic += call("write", map[string]any{"file_path": to, "content": content})
			}
			b.ReportMetric(float64(traffic)/float64(b.N), "model-bytes/op")
		})
	}
}
