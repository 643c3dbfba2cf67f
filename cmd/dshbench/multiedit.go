package main

import (
	"strconv"
	"strings"
	"time"
)

// multiEdit measures multi_edit against what it replaces (docs/editing.md):
// three edits of a 10 MB file in one multi_edit call, and the same three
// edits as three edit calls, alternately, through one `dshhost serve` with
// toolfs.multiEdit on, each on its own copy of the file (after the read the
// read-before-edit policy asks for). Every call changes its file: the
// edits switch three lines between `line <k> ` and `LINE <k> `. It also
// times the same multi_edit with dry_run (nothing written), alternated
// with the others.
func (b *bench) multiEdit() {
	n := max(b.n/10, 4)
	const multi, three, dry = "edit10m-multi.txt", "edit10m-three.txt", "edit10m-dry.txt"
	fail := func(err error) {
		b.add(row{name: "multi_edit, 3 edits of a 10 MB file", dsh: figure{err: err}})
	}
	for _, p := range []string{multi, three, dry} {
		if err := writeLines(b.path(p), 0, 10_000_000, ""); err != nil {
			fail(err)
			return
		}
	}
	s, err := startServer("dshhost", b.ws, b.dshhost, "serve", "--workspace", b.ws, "--set", "toolfs.multiEdit=true")
	if err != nil {
		fail(err)
		return
	}
	defer s.stop()
	for _, p := range []string{multi, three} {
		if _, _, err := s.call("read", `{"file_path":"`+p+`","limit":1}`); err != nil {
			fail(err)
			return
		}
	}
	lines := []int{1000, 100_000, 199_000} // unique: `line 1000 ` is not `line 10000 `
	pairs := func(i int) (from, to []string) {
		for _, k := range lines {
			lower, upper := "line "+strconv.Itoa(k)+" ", "LINE "+strconv.Itoa(k)+" "
			if i%2 == 0 {
				from, to = append(from, lower), append(to, upper)
			} else {
				from, to = append(from, upper), append(to, lower)
			}
		}
		return from, to
	}
	multiArgs := func(file string, i int, dryRun bool) string {
		from, to := pairs(i)
		var edits []string
		for j := range from {
			edits = append(edits, `{"old_string":"`+from[j]+`","new_string":"`+to[j]+`"}`)
		}
		return `{"file_path":"` + file + `","edits":[` + strings.Join(edits, ",") + `],"dry_run":` + strconv.FormatBool(dryRun) + `}`
	}
	var tm, t3, td []time.Duration
	size := 0
	for i := range n + 2 {
		_, dm, err := s.call("multi_edit", multiArgs(multi, i, false))
		if err != nil {
			fail(err)
			return
		}
		var d3 time.Duration
		from, to := pairs(i)
		for j := range from {
			_, d, err := s.call("edit", `{"file_path":"`+three+`","old_string":"`+from[j]+`","new_string":"`+to[j]+`"}`)
			if err != nil {
				fail(err)
				return
			}
			d3 += d
		}
		// The dry run's file never changes: always the first pairs.
		bytes, dd, err := s.call("multi_edit", multiArgs(dry, 0, true))
		if err != nil {
			fail(err)
			return
		}
		if i >= 2 { // the first two of each warm up
			tm, t3, td = append(tm, dm), append(t3, d3), append(td, dd)
			size = max(size, bytes)
		}
	}
	var fm, f3, fd figure
	fm.p50, fm.p99 = percentiles(tm)
	f3.p50, f3.p99 = percentiles(t3)
	fd.p50, fd.p99 = percentiles(td)
	fd.bytes = size
	b.add(row{name: "multi_edit, 3 edits of a 10 MB file", command: "tools/call multi_edit (3 edits) / 3 tools/call edit, each the sum of its three; alternated",
		dsh: fm, other: f3, otherName: "3 edits", maxRatio: 1.0})
	b.add(row{name: "  the same 3 edits with dry_run", command: "tools/call multi_edit dry_run (the diff, nothing written) / the multi_edit that writes; alternated",
		dsh: fd, other: fm, otherName: "multi_edit", maxBytes: 64 << 10})
}
