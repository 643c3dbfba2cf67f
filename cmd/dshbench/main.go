// Command dshbench measures dshhost against the alternatives people would
// pick instead, in one run, and prints the figures and their ratios. It is a
// tool, not a test: `go test ./...` never runs it.
//
//	go run ./cmd/dshbench [-official DIR] [-quick] [-n 200]
//
// It builds dshhost (plain and CGO_ENABLED=0) and a static Go hello-world,
// makes its fixtures in a temporary directory, then
//
//   - drives `dshhost serve` over stdio with raw JSON-RPC (no SDK in the
//     client) and reports p50/p99 per call and the response bytes of read (a
//     2,000-line file), list (200 entries) and edit (one line of a 10 MB
//     file), with the server's peak RSS over the edits; when node and the
//     official MCP filesystem server (npm @modelcontextprotocol/server-filesystem,
//     its directory given by -official or DSHBENCH_OFFICIAL) are installed,
//     the same calls against it, side by side, with ratios; otherwise that
//     column is skipped with a message;
//   - with the same client, the series of contract D26 against the official
//     server (the first window of a 200 MB file, 5 bytes over a 1 GB file,
//     the time to answer initialize) and the 10 MB edit against a safe
//     replace done in process (touchOnly);
//   - times whole processes (median wall time): `dshhost call read` of a
//     small file against the hello-world, both static, the first window of
//     a 200 MB file against `wc -l`, a list of 10,200 entries against
//     `ls -l`, and the peak RSS of writing 5 bytes over a 1 GB file.
//
// -quick leaves out the 200 MB and 1 GB fixtures; -only sessions or -only
// processes runs one half; -only startup (never part of the default run)
// attributes the start-up of `dshhost call read` to the packages dshhost
// links, with hello-world programs that blank-import more and more of them;
// -only multiedit (never part of the default run) times multi_edit of three
// edits to a 10 MB file against the three edit calls it replaces, and its
// dry run; -only edits (never part of the default run either) measures one
// edit of a 10 GB sparse file and replace_all in a 200 MB file, beside the
// same calls of an older binary given with -before;
// -dshhost BINARY measures a given binary. docs/benchmarks.md explains the
// figures and the goals they are checked against.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

func main() {
	official := flag.String("official", os.Getenv("DSHBENCH_OFFICIAL"), "directory of the installed @modelcontextprotocol/server-filesystem package, or a directory whose node_modules holds it (empty: skip the side-by-side runs)")
	node := flag.String("node", "node", "the node binary")
	n := flag.Int("n", 200, "calls per measured series (edits: n/10)")
	quick := flag.Bool("quick", false, "leave out the 200 MB and 1 GB fixtures")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	only := flag.String("only", "", "comma-separated parts to run: sessions, processes, startup, multiedit, edits (empty: sessions and processes; startup, multiedit and edits run only when named)")
	dshhost := flag.String("dshhost", "", "a dshhost binary to measure instead of building one")
	before := flag.String("before", "", "with -only edits: an older dshhost binary whose same calls run beside each")
	era := flag.String("era", "legacy", "`legacy` (an initialize session) or 2026-07-28 (no session: the protocol fields and a conversation handle on every request) for dshhost's per-call series; the official server is always a legacy session")
	flag.Parse()

	work, err := os.MkdirTemp("", "dshbench-")
	if err != nil {
		fatal(err)
	}
	if !*keep {
		defer os.RemoveAll(work)
	}
	if *era != "legacy" && *era != "2026-07-28" {
		fmt.Fprintln(os.Stderr, "dshbench: -era must be legacy or 2026-07-28")
		os.Exit(2)
	}
	b := &bench{work: work, ws: filepath.Join(work, "ws"), n: *n, quick: *quick, dshhost: *dshhost, modern: *era != "legacy"}
	fmt.Printf("dshbench: %s/%s, %d CPUs, work dir %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), work)
	if err := b.build(); err != nil {
		fatal(err)
	}
	if err := b.fixtures(); err != nil {
		fatal(err)
	}
	if entry, err := findOfficial(*official); err != nil {
		fmt.Println("official server: skipped:", err)
	} else {
		b.official = []string{*node, entry}
	}
	if *only == "" || strings.Contains(*only, "sessions") {
		b.sessions()
		b.touchOnly()
	}
	if *only == "" || strings.Contains(*only, "processes") {
		b.processes()
	}
	if strings.Contains(*only, "startup") {
		b.startup()
	}
	if strings.Contains(*only, "multiedit") {
		b.multiEdit()
	}
	if strings.Contains(*only, "edits") {
		b.edits(*before)
	}
	b.report()
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "dshbench:", err)
	os.Exit(2)
}

// findOfficial returns the official server's entry point (dist/index.js)
// under dir, which is the package directory or one whose node_modules holds
// it.
func findOfficial(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("no -official directory (npm install @modelcontextprotocol/server-filesystem somewhere, then pass -official DIR)")
	}
	for _, p := range []string{
		filepath.Join(dir, "dist", "index.js"),
		filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"),
	} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no dist/index.js of @modelcontextprotocol/server-filesystem under %s", dir)
}
