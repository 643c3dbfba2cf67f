package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// run runs argv to completion with its output discarded and returns its wall
// time, its output size, its peak RSS in bytes (0 unless watch) and its CPU
// time (user + system); a process that exits non-zero returns them too, with
// the exit error.
//
// The peak RSS is the largest VmHWM read from /proc/<pid>/status while the
// process runs (every 2 ms). getrusage's ru_maxrss is no use here: Go starts
// children with vfork, and Linux carries the parent's high-water mark over
// the exec, so every child would report at least this harness's size.
// Watching costs the measured process: the reads compete for this machine's
// two cores and grow with the process's run time, so a timed run is not
// watched (pair watches only its unmeasured first runs).
func run(watch bool, argv ...string) (time.Duration, int, int64, time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var out countWriter
	cmd.Stdout = &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("%v: %w", argv, err)
	}
	if !watch {
		err := cmd.Wait()
		d := time.Since(start)
		if err != nil {
			err = fmt.Errorf("%v: %w", argv, err)
		}
		return d, out.n, 0, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), err
	}
	done := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		status := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status"
		var max int64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if hwm := vmHWM(status); hwm > max {
				max = hwm
			}
			select {
			case <-done:
				peak <- max
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	d := time.Since(start)
	close(done)
	rss := <-peak
	if err != nil {
		err = fmt.Errorf("%v: %w", argv, err)
	}
	return d, out.n, rss, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), err
}

// vmHWM returns the VmHWM of a /proc status file in bytes, 0 when it cannot
// be read (the process has exited, or is not yet exec'd).
func vmHWM(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// pair runs a and b alternately, runs times each after one unmeasured run
// of each, and returns their figures (p50/p99 of the wall time). The peak
// RSS comes from the unmeasured runs, the only ones watched (see run).
func pair(runs int, a, b []string) (fa, fb figure) {
	var ta, tb, ca, cb []time.Duration
	for i := range runs + 1 {
		da, na, ra, cpuA, err := run(i == 0, a...)
		if err != nil {
			return figure{err: err}, figure{err: err}
		}
		db, nb, rb, cpuB, err := run(i == 0, b...)
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

	d, h := pair(60, call(b.static, "read", `{"file_path":"`+smallFile+`"}`), []string{b.hello})
	b.add(row{name: "dshhost call read, small file (process)", command: "dshhost call read small.txt / hello-world, both CGO_ENABLED=0 go build (as the README installs)",
		dsh: d, other: h, otherName: "hello", maxRatio: 2.5})
	d, h = pair(60, call(b.dshhost, "read", `{"file_path":"`+smallFile+`"}`), []string{b.hello})
	b.add(row{name: "  the same, plain go build of dshhost", command: "plain go build (cgo); informative",
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
		dsh: d, other: w, otherName: "wc -l", maxRatio: 1.0})

	// Once: the write replaces the 1 GB file with 5 bytes (the session
	// series may have done so already: it is remade first).
	if fi, err := os.Stat(b.path(hugeFile)); err != nil || fi.Size() < 1_000_000_000-100 {
		if err := writeLines(b.path(hugeFile), 0, 1_000_000_000, ""); err != nil {
			b.add(row{name: "write 5 bytes over a 1 GB file (process)", dsh: figure{err: err}})
			return
		}
		syscall.Sync()
	}
	dw, n, rss, cpu, err := run(true, b.dshhost, "call", ws, "--disable", "fspolicy", "write", `{"file_path":"`+hugeFile+`","content":"hello"}`)
	f := figure{p50: dw, p99: dw, cpu: cpu, bytes: n, peakRSS: rss, err: err}
	if fi, statErr := os.Stat(b.path(hugeFile)); err == nil && (statErr != nil || fi.Size() != 5) {
		f.err = fmt.Errorf("the 1 GB file was not replaced by 5 bytes")
	}
	b.add(row{name: "write 5 bytes over a 1 GB file (process)", command: "dshhost call --disable fspolicy write huge1g.txt", dsh: f, maxRSS: 64 << 20})
}
