package checkpoint_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/checkpoint"
	"github.com/dsh-go/dsh/plugins/tools"
)

// The benchmarks below measure what the checkpoint plugin adds to one
// mutating call: each has a "plain" sub-benchmark (the default stack) and a
// "checkpoint" one (the same stack with the plugin mounted), to be compared
// as ratios within one run. In the checkpoint variant the worker stores
// the steps asynchronously, so each loop ends with one `checkpoints` call,
// which waits for every queued step to be stored, before the timer stops:
// the flush is counted in ns/op.

// benchStack mounts the stack, with the checkpoint plugin (its store in a
// fresh state directory) when withCheckpoint.
func benchStack(b *testing.B, withCheckpoint bool) *stacktest.Stack {
	b.Helper()
	if !withCheckpoint {
		return stacktest.New(b, stacktest.Options{})
	}
	b.Setenv("DSH_STATE_DIR", b.TempDir())
	return stacktest.New(b, stacktest.Options{Checkpoint: map[string]any{}})
}

// benchCall runs tool in conv and fails b when it errs.
func benchCall(b *testing.B, s *stacktest.Stack, conv *tools.Conversation, tool, args string) {
	b.Helper()
	if res := s.Call(b.Context(), conv, tool, args); res.IsError {
		b.Fatalf("%s %s: %s", tool, args, res.Text())
	}
}

// benchPut writes name in the workspace.
func benchPut(b *testing.B, s *stacktest.Stack, name string, data []byte) {
	b.Helper()
	if err := os.WriteFile(filepath.Join(s.W, name), data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// flush waits, inside the timed region, for the checkpoint worker to store
// every queued step (a no-op for the plain stack).
func flush(b *testing.B, s *stacktest.Stack, conv *tools.Conversation, withCheckpoint bool) {
	b.Helper()
	if withCheckpoint {
		benchCall(b, s, conv, "checkpoints", `{}`)
	}
}

// storeBytes is the total size of the regular files under the store.
func storeBytes(b testing.TB, s *stacktest.Stack) int64 {
	b.Helper()
	return treeBytes(b, checkpoint.Key.Must(s.Host.Root()).Dir())
}

// treeBytes is the total size of the regular files under dir.
func treeBytes(b testing.TB, dir string) int64 {
	b.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return total
}

// variants runs fn as the sub-benchmarks "plain" and "checkpoint".
func variants(b *testing.B, fn func(b *testing.B, withCheckpoint bool)) {
	b.Run("plain", func(b *testing.B) { fn(b, false) })
	b.Run("checkpoint", func(b *testing.B) { fn(b, true) })
}

// editLoop alternates the one-line edit "x1" → "x2" and back on name, b.N
// times, then flushes, all timed.
func editLoop(b *testing.B, s *stacktest.Stack, conv *tools.Conversation, name string, withCheckpoint bool) {
	b.Helper()
	from, to := "x1", "x2"
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		benchCall(b, s, conv, "edit", `{"file_path":"`+name+`","old_string":"`+from+`","new_string":"`+to+`"}`)
		from, to = to, from
	}
	flush(b, s, conv, withCheckpoint)
	b.StopTimer()
}

// BenchmarkEditSmall edits one line of a 2,000-line file (about 160 KB),
// read once, alternating "x1" and "x2". The checkpoint variant also
// reports the store's size per step (store-B/op).
func BenchmarkEditSmall(b *testing.B) {
	variants(b, func(b *testing.B, withCheckpoint bool) {
		s := benchStack(b, withCheckpoint)
		var text strings.Builder
		for i := range 2000 {
			fmt.Fprintf(&text, "line %04d: the quick brown fox jumps over the lazy dog, again and again and again\n", i)
		}
		text.WriteString("x1\n")
		benchPut(b, s, "small.txt", []byte(text.String()))
		conv := s.Conversation("bench")
		benchCall(b, s, conv, "read", `{"file_path":"small.txt"}`)
		b.SetBytes(int64(text.Len()))
		editLoop(b, s, conv, "small.txt", withCheckpoint)
		if withCheckpoint {
			b.ReportMetric(float64(storeBytes(b, s))/float64(b.N), "store-B/op")
		}
	})
}

// BenchmarkEdit10MB edits one line of a 10 MB file, alternating "x1" and
// "x2": under the default maxFileBytes (32 MiB), the plugin copies it.
func BenchmarkEdit10MB(b *testing.B) {
	variants(b, func(b *testing.B, withCheckpoint bool) {
		s := benchStack(b, withCheckpoint)
		line := strings.Repeat("y", 99) + "\n"
		text := strings.Repeat(line, 100_000-1) + "x1" + strings.Repeat("y", 97) + "\n"
		benchPut(b, s, "big.txt", []byte(text))
		conv := s.Conversation("bench")
		benchCall(b, s, conv, "read", `{"file_path":"big.txt","offset":1,"limit":1}`)
		b.SetBytes(int64(len(text)))
		editLoop(b, s, conv, "big.txt", withCheckpoint)
	})
}

// BenchmarkWrite overwrites a 4 KB file, alternating two contents.
func BenchmarkWrite(b *testing.B) {
	variants(b, func(b *testing.B, withCheckpoint bool) {
		s := benchStack(b, withCheckpoint)
		var contents [2]string
		for i := range contents {
			content, err := json.Marshal(strings.Repeat(fmt.Sprintf("content %d ", i), 4096/10+1)[:4096])
			if err != nil {
				b.Fatal(err)
			}
			contents[i] = `{"file_path":"w.txt","content":` + string(content) + `}`
		}
		conv := s.Conversation("bench")
		benchCall(b, s, conv, "write", contents[1]) // created, so each timed write is an overwrite
		b.SetBytes(4096)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			benchCall(b, s, conv, "write", contents[i%2])
		}
		flush(b, s, conv, withCheckpoint)
		b.StopTimer()
	})
}
