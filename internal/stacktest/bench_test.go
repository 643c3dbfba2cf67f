package stacktest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// BenchmarkReadCall reads a 2,000-line file (about 160 KB) through the
// registry: validation, resolve, stat, read, the window (capped at
// readMaxBytes), fs/observed, the output check and rendering. Target: under
// 1 ms/op.
func BenchmarkReadCall(b *testing.B) {
	s := stacktest.New(b, stacktest.Options{})
	var text strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&text, "line %04d: the quick brown fox jumps over the lazy dog, again and again and again\n", i)
	}
	if err := os.WriteFile(filepath.Join(s.W, "big.txt"), []byte(text.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	sess := s.Conversation("bench")
	b.SetBytes(int64(text.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if res := s.Call(b.Context(), sess, "read", `{"file_path":"big.txt"}`); res.IsError {
			b.Fatal(res.Text())
		}
	}
}

// BenchmarkListCall lists a 10,000-entry directory (first page of 200)
// through the registry.
func BenchmarkListCall(b *testing.B) {
	s := stacktest.New(b, stacktest.Options{})
	dir := filepath.Join(s.W, "many")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 10000 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%05d.txt", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	sess := s.Conversation("bench")
	b.ReportAllocs()
	for b.Loop() {
		if res := s.Call(b.Context(), sess, "list", `{"path":"many"}`); res.IsError {
			b.Fatal(res.Text())
		}
	}
}

// BenchmarkEditCall edits a 1 MB file through the registry with the policy
// on: each edit is guarded by the previous one's observation, and each
// commits atomically (staged, fsynced, renamed).
func BenchmarkEditCall(b *testing.B) {
	s := stacktest.New(b, stacktest.Options{})
	line := strings.Repeat("x", 99) + "\n"
	text := strings.Repeat(line, 10485) + "MARKER-A\n"
	if err := os.WriteFile(filepath.Join(s.W, "big.txt"), []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	sess := s.Conversation("bench")
	if res := s.Call(b.Context(), sess, "read", `{"file_path":"big.txt","offset":1,"limit":1}`); res.IsError {
		b.Fatal(res.Text())
	}
	from, to := "MARKER-A", "MARKER-B"
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		res := s.Call(b.Context(), sess, "edit", `{"file_path":"big.txt","old_string":"`+from+`","new_string":"`+to+`"}`)
		if res.IsError {
			b.Fatal(res.Text())
		}
		from, to = to, from
	}
}

// BenchmarkReadFirstWindowBig reads the first window of a 200 MB file of
// 2 million lines through the registry: the whole file is streamed to count
// its lines exactly. It creates the file in setup, so it runs only with
// -bench.
func BenchmarkReadFirstWindowBig(b *testing.B) {
	s := stacktest.New(b, stacktest.Options{})
	f, err := os.Create(filepath.Join(s.W, "big.txt"))
	if err != nil {
		b.Fatal(err)
	}
	line := strings.Repeat("y", 99) + "\n"
	block := strings.Repeat(line, 10000)
	for range 200 {
		if _, err := f.WriteString(block); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	sess := s.Conversation("bench")
	b.SetBytes(200_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if res := s.Call(b.Context(), sess, "read", `{"file_path":"big.txt"}`); res.IsError {
			b.Fatal(res.Text())
		}
	}
}
