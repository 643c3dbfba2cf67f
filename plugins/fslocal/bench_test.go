package fslocal_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// Benchmarks of the provider's reads, writes and listings. They create their big files in b.TempDir()
// and run only with -bench, e.g.
//
//	go test -run '^$' -bench . -benchtime 3x ./plugins/fslocal/

// benchProvider returns a provider whose cwd is a fresh temp dir.
func benchProvider(b *testing.B) (*fslocal.Provider, string) {
	b.Helper()
	dir, err := filepath.EvalSymlinks(b.TempDir())
	require.NoError(b, err)
	p, err := fslocal.New(fslocal.Config{Cwd: dir})
	require.NoError(b, err)
	b.Cleanup(func() { p.Close() })
	return p, dir
}

// writeBig writes size bytes to path: lines of lineLen bytes (the last may
// be cut), or one single line when lineLen is 0.
func writeBig(b *testing.B, path string, size, lineLen int) {
	b.Helper()
	f, err := os.Create(path)
	require.NoError(b, err)
	w := bufio.NewWriterSize(f, 1<<20)
	line := strings.Repeat("x", max(lineLen-1, 0)) + "\n"
	if lineLen == 0 {
		line = "0123456789abcdéf" // one line, multi-byte runes across chunk edges
	}
	for written := 0; written < size; {
		n := min(len(line), size-written)
		_, err := w.WriteString(line[:n])
		require.NoError(b, err)
		written += n
	}
	require.NoError(b, w.Flush())
	require.NoError(b, f.Close())
}

// heapSampler tracks the largest live heap (as of the latest GC) seen while
// streaming.
type heapSampler struct {
	sample []metrics.Sample
	peak   uint64
}

func newHeapSampler() *heapSampler {
	return &heapSampler{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

func (h *heapSampler) take() {
	metrics.Read(h.sample)
	h.peak = max(h.peak, h.sample[0].Value.Uint64())
}

// BenchmarkStreamTextLineScan streams files of 8, 64 and 200 MB through
// StreamText and scans them for lines (count and longest line, nothing
// kept), with 100-byte lines and as one single line. Reported: MB/s, B/op
// and allocs/op (B/op is the file size: every chunk is a fresh string the
// caller may keep), and peak-live-MB, the largest live heap the GC saw
// during the scan, which stays flat whatever the file size: nothing holds
// more than a chunk.
func BenchmarkStreamTextLineScan(b *testing.B) {
	for _, shape := range []struct {
		name    string
		lineLen int
	}{{"lines", 100}, {"one-line", 0}} {
		for _, mb := range []int{8, 64, 200} {
			b.Run(fmt.Sprintf("%s/%dMB", shape.name, mb), func(b *testing.B) {
				p, dir := benchProvider(b)
				size := mb << 20
				writeBig(b, filepath.Join(dir, "big.txt"), size, shape.lineLen)
				tg, err := p.Resolve(context.Background(), "big.txt", fsapi.ResolveOptions{})
				require.NoError(b, err)
				heap := newHeapSampler()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					seq, err := p.StreamText(context.Background(), tg)
					if err != nil {
						b.Fatal(err)
					}
					lines, longest, cur, chunks := 0, 0, 0, 0
					for chunk, err := range seq {
						if err != nil {
							b.Fatal(err)
						}
						for {
							i := strings.IndexByte(chunk, '\n')
							if i < 0 {
								cur += len(chunk)
								break
							}
							longest = max(longest, cur+i)
							cur = 0
							lines++
							chunk = chunk[i+1:]
						}
						if chunks++; chunks%64 == 0 {
							heap.take()
						}
					}
					longest = max(longest, cur)
					if longest == 0 {
						b.Fatal("nothing scanned")
					}
				}
				b.ReportMetric(float64(heap.peak)/(1<<20), "peak-live-MB")
			})
		}
	}
}

// BenchmarkStreamBytesLineScan is the same scan through StreamBytes, whose
// chunks alias one buffer: B/op and allocs/op stay the same whatever the
// file size.
func BenchmarkStreamBytesLineScan(b *testing.B) {
	for _, mb := range []int{8, 64, 200} {
		b.Run(fmt.Sprintf("lines/%dMB", mb), func(b *testing.B) {
			p, dir := benchProvider(b)
			size := mb << 20
			writeBig(b, filepath.Join(dir, "big.txt"), size, 100)
			tg, err := p.Resolve(context.Background(), "big.txt", fsapi.ResolveOptions{})
			require.NoError(b, err)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				seq, err := p.StreamBytes(context.Background(), tg)
				if err != nil {
					b.Fatal(err)
				}
				lines := 0
				for chunk, err := range seq {
					if err != nil {
						b.Fatal(err)
					}
					lines += bytes.Count(chunk, []byte{'\n'})
				}
				if lines != size/100 {
					b.Fatal(lines)
				}
			}
		})
	}
}

// BenchmarkReadText reads a 10 MB file whole, for comparison.
func BenchmarkReadText(b *testing.B) {
	p, dir := benchProvider(b)
	const size = 10 << 20
	writeBig(b, filepath.Join(dir, "f.txt"), size, 100)
	tg, err := p.Resolve(context.Background(), "f.txt", fsapi.ResolveOptions{})
	require.NoError(b, err)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.ReadText(context.Background(), tg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEditText10MB edits one line of a 10 MB file (unguarded), back
// and forth: each op reads, checks, matches, rewrites and commits the whole
// file with both fsyncs.
func BenchmarkEditText10MB(b *testing.B) {
	p, dir := benchProvider(b)
	const size = 10 << 20
	path := filepath.Join(dir, "f.txt")
	writeBig(b, path, size-len("MARKER-A\n"), 100)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(b, err)
	_, err = f.WriteString("MARKER-A\n")
	require.NoError(b, err)
	require.NoError(b, f.Close())
	tg, err := p.Resolve(context.Background(), "f.txt", fsapi.ResolveOptions{})
	require.NoError(b, err)
	reqs := []fsapi.EditRequest{{OldString: "MARKER-A", NewString: "MARKER-B"}, {OldString: "MARKER-B", NewString: "MARKER-A"}}
	b.SetBytes(size)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := p.EditText(context.Background(), tg, reqs[i%2], nil); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// benchDir makes a directory d of n empty files named by format (with
// their index) and returns the provider, d's target and d's path.
func benchDir(b *testing.B, n int, format string) (*fslocal.Provider, fsapi.Target, string) {
	p, dir := benchProvider(b)
	d := filepath.Join(dir, "d")
	require.NoError(b, os.Mkdir(d, 0o755))
	for i := range n {
		require.NoError(b, os.WriteFile(filepath.Join(d, fmt.Sprintf(format, i)), nil, 0o644))
	}
	tg, err := p.Resolve(context.Background(), "d", fsapi.ResolveOptions{})
	require.NoError(b, err)
	return p, tg, d
}

// BenchmarkListDir10k lists a directory of 10,000 files (probe, collation
// sort, one fstatat per child).
func BenchmarkListDir10k(b *testing.B) {
	p, tg, _ := benchDir(b, 10_000, "file-%05d.txt")
	b.ReportAllocs()
	for b.Loop() {
		entries, err := p.ListDir(context.Background(), tg)
		if err != nil || len(entries) != 10_000 {
			b.Fatal(err, len(entries))
		}
	}
}

// BenchmarkListEntries200 is the list tool's listing of a 200-file
// directory: the cheap listing, types from the directory read, no stat per
// child.
func BenchmarkListEntries200(b *testing.B) {
	p, tg, _ := benchDir(b, 200, "f%03d.txt")
	b.ReportAllocs()
	for b.Loop() {
		entries, err := p.ListEntries(context.Background(), tg, fsapi.ListOptions{})
		if err != nil || len(entries) != 200 {
			b.Fatal(err, len(entries))
		}
	}
}
