package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// touchOnly runs the series of contract D26 ("touch only what is needed")
// against the official server, same client, same files: the first window
// of the 200 MB file (the official server's `head: 2000`), 5 bytes written
// over the 1 GB file (remade and synced to disk before each write), and the time from a
// server's start to its answer to `initialize`; and the 10 MB one-line
// edit against the safe-replace floor, done here in process: read the
// file, replace the line, write a temporary file in its directory, fsync
// it, rename it over, fsync the directory.
func (b *bench) touchOnly() {
	dshServe := []string{b.dshhost, "serve", "--workspace", b.ws}
	var offServe []string
	if b.official != nil {
		offServe = append(append([]string{}, b.official...), b.ws)
	}

	cold := func(argv []string) figure {
		if argv == nil {
			return figure{}
		}
		var times []time.Duration
		for range b.n / 4 {
			start := time.Now()
			s, err := startServer(argv[0], b.ws, argv...)
			if err != nil {
				return figure{err: err}
			}
			times = append(times, time.Since(start))
			s.stop()
		}
		p50, p99 := percentiles(times)
		return figure{p50: p50, p99: p99}
	}
	b.add(row{name: "start to initialize answered", command: "dshhost serve / official server: spawn, initialize, its answer",
		dsh: cold(dshServe), other: cold(offServe), otherName: "official", maxRatio: 1.0})

	edit, floor := b.editAgainstFloor(dshServe, max(b.n/10, 4))
	b.add(row{name: "edit, one line of a 10 MB file, vs a safe replace", command: "tools/call edit / read, replace, temp file, fsync, rename, directory fsync in process; alternated",
		dsh: edit, other: floor, otherName: "safe replace", maxRatio: 1.2})

	if b.quick {
		return
	}
	window := func(argv []string, tool, args string) figure {
		if argv == nil {
			return figure{}
		}
		s, err := startServer(argv[0], b.ws, argv...)
		if err != nil {
			return figure{err: err}
		}
		defer s.stop()
		return series(s, tool, func(int) string { return args }, 2, max(b.n/10, 4))
	}
	b.add(row{name: "read, first window of a 200 MB file, warm", command: `read {"file_path":"big200m.txt"} / read_text_file {"path":...,"head":2000}`,
		dsh:   window(dshServe, "read", `{"file_path":"`+bigFile+`"}`),
		other: window(offServe, "read_text_file", `{"path":`+strconv.Quote(b.path(bigFile))+`,"head":2000}`), otherName: "official", maxRatio: 1.0})

	overwrite := func(argv []string, tool, args string) figure {
		if argv == nil {
			return figure{}
		}
		var times []time.Duration
		for range 2 {
			if err := writeLines(b.path(hugeFile), 0, 1_000_000_000, ""); err != nil {
				return figure{err: err}
			}
			// At rest, as a file an agent overwrites has been: otherwise
			// the write would also wait for the fixture's own writeback.
			syscall.Sync()
			s, err := startServer(argv[0], b.ws, argv...)
			if err != nil {
				return figure{err: err}
			}
			_, d, err := s.call(tool, args)
			s.stop()
			if err != nil {
				return figure{err: err}
			}
			times = append(times, d)
		}
		p50, p99 := percentiles(times)
		return figure{p50: p50, p99: p99}
	}
	dshWrite := overwrite(append(append([]string{}, dshServe...), "--disable", "fspolicy"), "write", `{"file_path":"`+hugeFile+`","content":"hello"}`)
	offWrite := overwrite(offServe, "write_file", `{"path":`+strconv.Quote(b.path(hugeFile))+`,"content":"hello"}`)
	b.add(row{name: "write 5 bytes over a 1 GB file, warm", command: `write {"file_path":"huge1g.txt","content":"hello"} / write_file, the file remade and synced before each`,
		dsh: dshWrite, other: offWrite, otherName: "official", maxRatio: 1.0})
}

// editAgainstFloor alternates n one-line edits of the 10 MB fixture
// through dshhost serve (after the read its policy asks for) with n safe
// replaces of a copy of it done here, and returns both series: the floor
// of a durable edit, under the same load as the edits.
func (b *bench) editAgainstFloor(serve []string, n int) (edit, floor figure) {
	path, target := b.path("edit10m-floor.txt"), "edit10m-dsh2.txt"
	for _, p := range []string{path, b.path(target)} {
		if err := writeLines(p, 0, 10_000_000, "MARKER-A"); err != nil {
			return figure{err: err}, figure{err: err}
		}
	}
	s, err := startServer("dshhost", b.ws, serve...)
	if err != nil {
		return figure{err: err}, figure{err: err}
	}
	defer s.stop()
	if _, _, err := s.call("read", `{"file_path":"`+target+`","limit":1}`); err != nil {
		return figure{err: err}, figure{err: err}
	}
	var te, tf []time.Duration
	for i := range n + 2 {
		from, to := toggle(i)
		_, d, err := s.call("edit", `{"file_path":"`+target+`","old_string":"`+from+`","new_string":"`+to+`"}`)
		if err != nil {
			return figure{err: err}, figure{err: err}
		}
		start := time.Now()
		if err := safeReplace(path, from, to); err != nil {
			return figure{err: err}, figure{err: err}
		}
		if i >= 2 { // the first two of each warm up
			te, tf = append(te, d), append(tf, time.Since(start))
		}
	}
	edit.p50, edit.p99 = percentiles(te)
	floor.p50, floor.p99 = percentiles(tf)
	return edit, floor
}

func safeReplace(path, from, to string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i := bytes.Index(data, []byte(from))
	if i < 0 {
		return fmt.Errorf("%s: no %s", path, from)
	}
	out := append(append(append(make([]byte, 0, len(data)-len(from)+len(to)), data[:i]...), to...), data[i+len(from):]...)
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".floor-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
