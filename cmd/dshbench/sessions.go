package main

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// figure is one measured series: latency percentiles, the size of one
// response (or process output) and a peak RSS, each zero when not measured.
type figure struct {
	p50, p99 time.Duration
	cpu      time.Duration // CPU time (user + system) per call or per process
	bytes    int
	peakRSS  int64
	err      error
}

// series calls tool with args(i) warm times unmeasured, then n times, and
// returns p50/p99 and the largest response size.
func series(s *server, tool string, args func(i int) string, warm, n int) figure {
	var times []time.Duration
	size := 0
	var cpu0 time.Duration
	for i := range warm + n {
		if i == warm {
			cpu0 = s.cpu()
		}
		bytes, d, err := s.call(tool, args(i))
		if err != nil {
			return figure{err: err}
		}
		if i >= warm {
			times = append(times, d)
			size = max(size, bytes)
		}
	}
	p50, p99 := percentiles(times)
	return figure{p50: p50, p99: p99, bytes: size, cpu: (s.cpu() - cpu0) / time.Duration(max(n, 1))}
}

// percentiles returns the median and the 99th percentile (nearest rank).
func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.5) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return rank(0.50), rank(0.99)
}

// toggle alternates an edit between two markers so every call changes the
// file.
func toggle(i int) (from, to string) {
	if i%2 == 0 {
		return "MARKER-A", "MARKER-B"
	}
	return "MARKER-B", "MARKER-A"
}

// sessions runs the warm per-call series against dshhost serve and, when
// installed, the official server.
func (b *bench) sessions() {
	edits := max(b.n/10, 4)
	dsh := map[string]figure{}
	off := map[string]figure{}

	start := startServer
	if b.modern {
		start = startModern
	}
	if s, err := start("dshhost", b.ws, b.dshhost, "serve", "--workspace", b.ws); err != nil {
		dsh["read"], dsh["list"] = figure{err: err}, figure{err: err}
	} else {
		dsh["read"] = series(s, "read", func(int) string { return `{"file_path":"` + readFile + `"}` }, 20, b.n)
		dsh["list"] = series(s, "list", func(int) string { return `{"path":"` + listDir + `"}` }, 20, b.n)
		s.stop()
	}
	// A fresh server for the edits, so its peak RSS is theirs: the read
	// that the read-before-edit policy asks for, then the edits.
	if s, err := start("dshhost", b.ws, b.dshhost, "serve", "--workspace", b.ws); err != nil {
		dsh["edit"] = figure{err: err}
	} else {
		if _, _, err := s.call("read", `{"file_path":"`+editDsh+`","limit":1}`); err != nil {
			dsh["edit"] = figure{err: err}
		} else {
			f := series(s, "edit", func(i int) string {
				from, to := toggle(i)
				return `{"file_path":"` + editDsh + `","old_string":"` + from + `","new_string":"` + to + `"}`
			}, 2, edits)
			_, f.peakRSS = s.rss()
			dsh["edit"] = f
		}
		s.stop()
	}

	if b.official != nil {
		argv := append(append([]string{}, b.official...), b.ws)
		if s, err := startServer("official", b.ws, argv...); err != nil {
			fmt.Println("official server: cannot start:", err)
			b.official = nil
		} else {
			off["read"] = series(s, "read_text_file", func(int) string { return `{"path":` + strconv.Quote(b.path(readFile)) + `}` }, 20, b.n)
			off["list"] = series(s, "list_directory", func(int) string { return `{"path":` + strconv.Quote(b.path(listDir)) + `}` }, 20, b.n)
			f := series(s, "edit_file", func(i int) string {
				from, to := toggle(i)
				return `{"path":` + strconv.Quote(b.path(editOfficial)) + `,"edits":[{"oldText":"` + from + `","newText":"` + to + `"}]}`
			}, 2, edits)
			_, f.peakRSS = s.rss()
			off["edit"] = f
			s.stop()
		}
	}

	b.add(row{name: "read, 2,000-line file (66 KB), warm", command: `tools/call read {"file_path":"read2000.txt"} / read_text_file`,
		dsh: dsh["read"], other: off["read"], otherName: "official", maxRatio: 0.25, maxBytes: 72 << 10})
	b.add(row{name: "list, 200 entries, warm", command: `tools/call list {"path":"dir200"} / list_directory`,
		dsh: dsh["list"], other: off["list"], otherName: "official", maxRatio: 0.5})
	b.add(row{name: "edit, one line of a 10 MB file", command: `tools/call edit (MARKER-A <-> MARKER-B) / edit_file`,
		dsh: dsh["edit"], other: off["edit"], otherName: "official", maxRatio: 0.5, maxBytes: 64 << 10, maxRSS: 60 << 20})
}
