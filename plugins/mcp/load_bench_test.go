package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-go/dsh/internal/stacktest"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// BenchmarkHTTPLoad is the load benchmark of issue 12: 50 HTTP sessions
// at once, each with 5 workers in flight, each worker making 4 calls on a
// file of its own (read, edit, list, edit): 20 calls per session, 1,000 in
// all, 500 of them edits. It fails on any error or any edit missing on disk
// and reports the latency percentiles of one call and the peak RSS of the
// process (server and clients together):
//
//	go test -run '^$' -bench HTTPLoad -benchtime 1x ./plugins/mcp
func BenchmarkHTTPLoad(b *testing.B) {
	const sessions, workers = 50, 5
	for b.Loop() {
		s := serveHTTPForBench(b)
		var mu sync.Mutex
		var lat []time.Duration
		var errs []string
		var wg sync.WaitGroup
		for i := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tr := &mcp.StreamableClientTransport{Endpoint: s.srv.URL(), HTTPClient: &http.Client{Transport: stacktest.Bearer{Token: "secret", Next: http.DefaultTransport}}, DisableStandaloneSSE: true}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(context.Background(), tr, nil)
				if err != nil {
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
					return
				}
				defer cs.Close()
				var sw sync.WaitGroup
				for w := range workers {
					sw.Add(1)
					go func() {
						defer sw.Done()
						file := fmt.Sprintf("s%d-w%d.txt", i, w)
						for _, c := range []struct {
							tool string
							args map[string]any
						}{
							{"read", map[string]any{"file_path": file}},
							{"edit", map[string]any{"file_path": file, "old_string": "old-1", "new_string": "new-1"}},
							{"list", map[string]any{}},
							{"edit", map[string]any{"file_path": file, "old_string": "old-2", "new_string": "new-2"}},
						} {
							start := time.Now()
							res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
							d := time.Since(start)
							mu.Lock()
							lat = append(lat, d)
							switch {
							case err != nil:
								errs = append(errs, err.Error())
							case res.IsError:
								errs = append(errs, res.Content[0].(*mcp.TextContent).Text)
							}
							mu.Unlock()
						}
					}()
				}
				sw.Wait()
			}()
		}
		wg.Wait()
		if len(errs) > 0 {
			b.Fatalf("%d errors, first: %s", len(errs), errs[0])
		}
		for i := range sessions {
			for w := range workers {
				got, err := os.ReadFile(filepath.Join(s.W, fmt.Sprintf("s%d-w%d.txt", i, w)))
				if err != nil || string(got) != "a new-1\nb new-2\n" {
					b.Fatalf("edit missing on disk: %q %v", got, err)
				}
			}
		}
		slices.Sort(lat)
		b.ReportMetric(float64(len(lat)), "calls")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MiB")
	}
}

// serveHTTPForBench is serveHTTP for a benchmark, with the files made.
func serveHTTPForBench(b *testing.B) *served {
	b.Helper()
	s := serveHTTP(b, func(c *mcpserver.Config) { c.Logger = quietLogger() })
	for i := range 50 {
		for w := range 5 {
			if err := os.WriteFile(filepath.Join(s.W, fmt.Sprintf("s%d-w%d.txt", i, w)), []byte("a old-1\nb old-2\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return s
}

// peakRSS returns the process's peak resident set (VmHWM), in bytes.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
