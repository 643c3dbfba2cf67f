package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// run runs argv to completion with its output discarded and returns its wall
// time, its output size, its peak RSS in bytes (getrusage ru_maxrss) and its
// CPU time (user + system).
func run(argv ...string) (time.Duration, int, int64, time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var out countWriter
	cmd.Stdout = &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("%v: %w", argv, err)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10
	}
	return d, out.n, rss, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// pair runs a and b alternately, runs times each after one unmeasured run
// of each, and returns their figures (p50/p99 of the wall time).
func pair(runs int, a, b []string) (fa, fb figure) {
	var ta, tb, ca, cb []time.Duration
	for i := range runs + 1 {
		da, na, ra, cpuA, err := run(a...)
		if err != nil {
			return figure{err: err}, figure{err: err}
		}
		db, nb, rb, cpuB, err := run(b...)
		if err != nil {
			return figure{err: err}, figure{err: err}
		}
		if i > 0 {
			ta, tb = append(ta, da), append(tb, db)
			ca, cb = append(ca, cpuA), append(cb, cpuB)
		}
		fa.bytes, fa.peakRSS = na, max(fa.peakRSS, ra)
		fb.bytes, fb.peakRSS = nb, max(fb.peakRSS, rb)
	}
	fa.p50, fa.p99 = percentiles(ta)
	fb.p50, fb.p99 = percentiles(tb)
	fa.cpu, _ = percentiles(ca)
	fb.cpu, _ = percentiles(cb)
	return fa, fb
}

// processes times whole processes against their plain alternatives.
func (b *bench) processes() {
	ws := "--workspace=" + b.ws
	call := func(bin, tool, args string) []string { return []string{bin, "call", ws, tool, args} }

	d, h := pair(60, call(b.dshhost, "read", `{"file_path":"`+smallFile+`"}`), []string{b.hello})
	b.add(row{name: "dshhost call read, small file (process)", command: "dshhost call read small.txt / hello-world, both plain go build",
		dsh: d, other: h, otherName: "hello", maxRatio: 3.0})
	d, h = pair(60, call(b.static, "read", `{"file_path":"`+smallFile+`"}`), []string{b.hello})
	b.add(row{name: "  the same, static dshhost (CGO_ENABLED=0)", command: "CGO_ENABLED=0 go build; informative",
		dsh: d, other: h, otherName: "hello"})

	d, l := pair(20, call(b.dshhost, "list", `{"path":"`+manyDir+`"}`), []string{"ls", "-l", b.path(manyDir)})
	b.add(row{name: "list, 10,200 entries (process)", command: "dshhost call list dir10200 / ls -l dir10200",
		dsh: d, other: l, otherName: "ls -l", maxRatio: 0.6})

	if b.quick {
		fmt.Println("-quick: the 200 MB and 1 GB figures are left out")
		return
	}
	d, w := pair(10, call(b.dshhost, "read", `{"file_path":"`+bigFile+`"}`), []string{"wc", "-l", b.path(bigFile)})
	b.add(row{name: "read, first window of a 200 MB file (process)", command: "dshhost call read big200m.txt / wc -l big200m.txt",
		dsh: d, other: w, otherName: "wc -l", maxRatio: 1.2})

	// Once: the write replaces the 1 GB file with 5 bytes.
	dw, n, rss, cpu, err := run(b.dshhost, "call", ws, "--disable", "fspolicy", "write", `{"file_path":"`+hugeFile+`","content":"hello"}`)
	f := figure{p50: dw, p99: dw, cpu: cpu, bytes: n, peakRSS: rss, err: err}
	if fi, statErr := os.Stat(b.path(hugeFile)); err == nil && (statErr != nil || fi.Size() != 5) {
		f.err = fmt.Errorf("the 1 GB file was not replaced by 5 bytes")
	}
	b.add(row{name: "write 5 bytes over a 1 GB file (process)", command: "dshhost call --disable fspolicy write huge1g.txt", dsh: f, maxRSS: 64 << 20})
}
