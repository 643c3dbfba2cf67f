package toolsearch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// benchEnv is the binary and the tree copy the ripgrep benchmarks share.
var benchEnv struct {
	once sync.Once
	dsh  string // the dshhost binary
	tree string // a copy of $(go env GOROOT)/src
	err  error
	dir  string
}

// setupBench builds dshhost and copies the Go source tree once per run.
func setupBench(b *testing.B) (dsh, tree string) {
	b.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("ripgrep (rg) is not installed: apt-get install -y ripgrep")
	}
	benchEnv.once.Do(func() {
		dir, err := os.MkdirTemp("", "toolsearch-bench-")
		if err != nil {
			benchEnv.err = err
			return
		}
		benchEnv.dir = dir
		benchEnv.dsh = filepath.Join(dir, "dshhost")
		build := exec.Command("go", "build", "-o", benchEnv.dsh, "github.com/dsh-go/dsh/cmd/dshhost")
		if out, err := build.CombinedOutput(); err != nil {
			benchEnv.err = &exec.ExitError{Stderr: out}
			return
		}
		benchEnv.tree = filepath.Join(dir, "gosrc")
		if out, err := exec.Command("cp", "-r", filepath.Join(runtime.GOROOT(), "src"), benchEnv.tree).CombinedOutput(); err != nil {
			benchEnv.err = &exec.ExitError{Stderr: out}
		}
	})
	if benchEnv.err != nil {
		b.Fatal(benchEnv.err)
	}
	return benchEnv.dsh, benchEnv.tree
}

// compare runs ours and theirs alternately b.N times each, as whole
// processes, and reports both mean times and their ratio.
func compare(b *testing.B, ours, theirs []string) {
	b.Helper()
	run := func(argv []string) time.Duration {
		start := time.Now()
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		d := time.Since(start)
		if err != nil && len(out) == 0 {
			b.Fatalf("%v: %v", argv, err)
		}
		return d
	}
	run(ours) // warm the page cache
	run(theirs)
	var a, t time.Duration
	b.ResetTimer()
	for range b.N {
		a += run(ours)
		t += run(theirs)
	}
	b.StopTimer()
	b.ReportMetric(float64(a.Milliseconds())/float64(b.N), "dsh-ms/op")
	b.ReportMetric(float64(t.Milliseconds())/float64(b.N), "rg-ms/op")
	b.ReportMetric(float64(a)/float64(t), "ratio")
}

// BenchmarkRipgrep compares whole-process dshhost calls with ripgrep on a
// copy of the Go source tree (bench/README.md has the goals).
func BenchmarkRipgrep(b *testing.B) {
	dsh, tree := setupBench(b)
	b.Run("literal", func(b *testing.B) {
		compare(b, []string{dsh, "call", "--workspace", tree, "grep", `{"pattern":"func NewReplacer"}`},
			[]string{"rg", "-n", "--no-config", "func NewReplacer", tree})
	})
	b.Run("regex", func(b *testing.B) {
		compare(b, []string{dsh, "call", "--workspace", tree, "grep", `{"pattern":"errors\\.New\\(\"[a-z]+ overflow"}`},
			[]string{"rg", "-n", "--no-config", `errors\.New\("[a-z]+ overflow`, tree})
	})
	b.Run("glob", func(b *testing.B) {
		compare(b, []string{dsh, "call", "--workspace", tree, "glob", `{"pattern":"*_test.go"}`},
			[]string{"rg", "--files", "--no-config", "--sort", "modified", "-g", "*_test.go", tree})
	})
}

// BenchmarkGrepLongLine searches a 60 MB single-line file in process and
// reports the bytes allocated per search (about the file's size: one
// buffer) next to the file size.
func BenchmarkGrepLongLine(b *testing.B) {
	s := stacktest.New(b, stacktest.Options{})
	const size = 60 << 20
	line := strings.Repeat("a", size) + "needle\n"
	if err := os.WriteFile(filepath.Join(s.W, "line.txt"), []byte(line), 0o644); err != nil {
		b.Fatal(err)
	}
	line = ""
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		res := s.Call(b.Context(), s.Conversation("s"), "grep", `{"pattern":"needle"}`)
		if res.IsError || !strings.HasSuffix(res.Text(), " (line truncated)") {
			b.Fatalf("unexpected result: %.200s", res.Text())
		}
	}
	b.ReportMetric(float64(size), "file-bytes")
}
