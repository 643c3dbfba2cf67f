package toolsearch

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/dsh-go/dsh/internal/gitignore"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// ignoreFiles are the ignore files read from every directory, in
// precedence order (search.md §6.4.1).
var ignoreFiles = []string{".ignore", ".gitignore"}

// keptMatch is one collected match: the index of its file in grepRun.paths,
// its line number and its preview.
type keptMatch struct {
	file   int
	number int
	line   string
}

// grepRun is one grep call's search in progress: what it collected, in path
// order, and its counters (search.md §6.5).
type grepRun struct {
	se       *searcher
	req      grepRequest
	root     root
	opener   fsapi.Opener
	ctx      context.Context // the caller's
	budget   context.Context // the caller's, bounded by timeoutMs
	progress *tools.Progress // the files searched so far, when the client asked

	merged                                  atomic.Int64 // len(matches), for the workers' caps
	matches                                 []keptMatch
	paths                                   []string // display paths shown relative to B
	filesSearched, skippedLarge, unreadable int
	stop                                    string
}

// outcome is what became of one candidate (search.md §6.4 rules 7–10).
type outcome int

const (
	searched   outcome = iota // searched (matches may be partial: unfinished or err)
	large                     // larger than fileMaxBytes, not opened
	unreadable                // could not be opened or read
	skipped                   // binary, or vanished: not counted
	notStarted                // the budget ran out before it was opened
	halted                    // the search had already stopped
)

// fileResult is a worker's report on one job.
type fileResult struct {
	outcome outcome
	scan    scanResult
}

// job is one candidate in path order and, once searched, its result.
type job struct {
	target fsapi.Target
	rel    string // path below the root
	size   int64
	known  bool // result is set already: no worker needed
	result fileResult
}

// batchSize is how many candidates travel together from the walker to a
// worker and on to the merge: one channel handoff per batch instead of per
// file.
const batchSize = 16

// batch is a run of consecutive candidates; done is closed once a worker
// has set every result.
type batch struct {
	jobs []*job
	done chan struct{}
}

// take merges one file's result, in path order, into the run (search.md
// §6.5): it reports true when the search stops there (the hard cap or the
// time budget).
func (run *grepRun) take(r fileResult, path func() string) bool {
	switch r.outcome {
	case large:
		run.skippedLarge++
		return false
	case unreadable:
		run.unreadable++
		return false
	case skipped, halted:
		return false
	case notStarted:
		run.stop = stopTime
		return true
	}
	if r.scan.binary {
		return false
	}
	file := -1
	for _, m := range r.scan.matches {
		if len(run.matches) == run.se.cfg.MaxKept {
			run.stop = stopLimit
			run.filesSearched++
			return true
		}
		if file < 0 {
			file = len(run.paths)
			run.paths = append(run.paths, path())
		}
		run.matches = append(run.matches, keptMatch{file: file, number: m.number, line: m.line})
	}
	run.merged.Store(int64(len(run.matches)))
	if r.scan.err != nil {
		run.unreadable++
	} else {
		run.filesSearched++
	}
	if r.scan.unfinished {
		run.stop = stopTime
		return true
	}
	return false
}

// scanOptions returns the options of one file's scan. A file never needs
// more matches than the hard cap leaves after those merged so far, plus the
// one that stops the search; merged only grows, so the bound stays safe and
// keeps the files waiting to be merged small.
func (run *grepRun) scanOptions(binary bool, size int64) scanOptions {
	cfg := run.se.cfg
	need := max(1, int64(cfg.MaxKept)+1-run.merged.Load())
	return scanOptions{binary: binary, limit: cfg.FileMaxBytes, sizeHint: size, maxMatches: int(need), previewMax: cfg.GrepMaxLineBytes}
}

// searchFileRoot searches the file named by path (search.md §6.3 step 4):
// only the size cap applies; Open's errors pass through.
func (run *grepRun) searchFileRoot(info *fsapi.Info) error {
	if info.Size > run.se.cfg.FileMaxBytes {
		run.skippedLarge++
		return nil
	}
	rc, err := run.opener.Open(run.ctx, run.root.target)
	if err != nil {
		return err
	}
	defer rc.Close()
	sc := scanner{m: run.req.m}
	res := sc.scan(run.budget, rc, run.scanOptions(false, info.Size))
	if run.ctx.Err() != nil {
		return fsapi.ErrAborted("read", run.ctx.Err())
	}
	run.take(fileResult{outcome: searched, scan: res}, func() string { return run.root.show(run.root.target.DisplayPath) })
	return nil
}

// searchTree searches the candidates below a directory root (search.md
// §6.4): one goroutine walks and queues candidates in path order, workers
// search them concurrently, and this goroutine merges their results in
// the queued order, so the outcome equals the sequential search's. At the
// hard cap or when the budget runs out the walk and the workers stop.
func (run *grepRun) searchTree(walker fsapi.Walker) error {
	var stack ignoreStack
	for _, l := range run.levelsAbove(walker) {
		stack.Push(l)
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	window := 4 * workers
	order := make(chan *batch, window)
	batches := make(chan *batch, window)
	var stopped atomic.Bool
	var walkErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := scanner{m: run.req.m}
			for b := range batches {
				for _, j := range b.jobs {
					if !j.known {
						j.result = run.searchOne(&sc, j, &stopped)
					}
				}
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(batches)
		defer close(order)
		cur := &batch{done: make(chan struct{})}
		flush := func() {
			if len(cur.jobs) > 0 {
				order <- cur
				batches <- cur
				cur = &batch{done: make(chan struct{})}
			}
		}
		queue := func(j *job) error {
			if stopped.Load() {
				return fsapi.SkipAll
			}
			cur.jobs = append(cur.jobs, j)
			if len(cur.jobs) == batchSize {
				flush()
			}
			return nil
		}
		walkErr = walker.Walk(run.budget, run.root.target, fsapi.WalkOptions{DirFiles: ignoreFiles, MaxFileBytes: run.se.cfg.FileMaxBytes, FileInfo: true},
			func(e fsapi.WalkEntry) error {
				if stopped.Load() {
					return fsapi.SkipAll
				}
				return run.visit(e, &stack, queue)
			})
		flush()
	}()
	for b := range order {
		if stopped.Load() {
			continue // drain, so the walker can finish
		}
		<-b.done
		for _, j := range b.jobs {
			if run.take(j.result, func() string { return run.root.entryPath(j.rel) }) {
				stopped.Store(true)
				break
			}
		}
		run.progress.Report(float64(run.filesSearched), 0, "files searched")
	}
	wg.Wait()
	if run.ctx.Err() != nil {
		return fsapi.ErrAborted("walk", run.ctx.Err())
	}
	var fe *fsapi.Error
	switch {
	case walkErr == nil:
	case errors.As(walkErr, &fe) && fe.Code == fsapi.CodeAborted:
		if run.stop == stopNone {
			run.stop = stopTime
		}
	default:
		return walkErr
	}
	return nil
}

// visit applies the rules of search.md §6.4 to one walk entry.
func (run *grepRun) visit(e fsapi.WalkEntry, stack *ignoreStack, queue func(*job) error) error {
	isDir := e.Type == fsapi.TypeDirectory
	if e.Opened {
		if e.Path != "." {
			stack.Trim(e.Path)
		}
		if e.Err != nil {
			return queue(&job{rel: e.Path, known: true, result: fileResult{outcome: unreadable}})
		}
		if l := levelOf(e.Files); l != nil {
			dir := e.Path
			if dir == "." {
				dir = ""
			}
			stack.Push(ignoreLevel{Dir: dir, Files: l})
		}
		return nil
	}
	if isVCS(e.Name) || e.Name[0] == '.' {
		return skipEntry(e)
	}
	stack.Trim(e.Path)
	if stack.Ignored(e.Path, isDir) {
		return skipEntry(e)
	}
	if isDir || e.Type != fsapi.TypeFile {
		return nil
	}
	if inc := run.req.include; inc != nil && !inc.Match(e.Path, e.Name) {
		return nil
	}
	return queue(&job{target: e.Target, rel: e.Path, size: e.Size})
}

// levelOf parses a directory's ignore files, in precedence order; nil when
// it has none.
func levelOf(files map[string][]byte) []*gitignore.Rules {
	var rules []*gitignore.Rules
	for _, name := range ignoreFiles {
		if data, ok := files[name]; ok {
			rules = append(rules, gitignore.Parse(data))
		}
	}
	return rules
}

// searchOne searches one candidate file (search.md §6.4 rules 7–10).
func (run *grepRun) searchOne(sc *scanner, j *job, stopped *atomic.Bool) fileResult {
	switch {
	case stopped.Load():
		return fileResult{outcome: halted}
	case run.budget.Err() != nil:
		return fileResult{outcome: notStarted}
	case j.size > run.se.cfg.FileMaxBytes:
		return fileResult{outcome: large}
	}
	rc, err := run.opener.Open(run.budget, j.target)
	if err != nil {
		var fe *fsapi.Error
		switch {
		case errors.As(err, &fe) && fe.Code == fsapi.CodeNotFound:
			return fileResult{outcome: skipped} // vanished
		case errors.As(err, &fe) && fe.Code == fsapi.CodeProtected:
			return fileResult{outcome: skipped} // a secret's other name: never searched
		case errors.As(err, &fe) && fe.Code == fsapi.CodeAborted:
			return fileResult{outcome: notStarted}
		}
		return fileResult{outcome: unreadable}
	}
	defer rc.Close()
	return fileResult{outcome: searched, scan: sc.scan(run.budget, rc, run.scanOptions(true, j.size))}
}

// levelsAbove reads the ignore files of the directories from B down to the
// root's parent, when the root lies strictly inside B (search.md §6.4.1),
// each through a walk that stops at its root entry. A directory that cannot
// be resolved or walked contributes nothing.
func (run *grepRun) levelsAbove(walker fsapi.Walker) []ignoreLevel {
	shown := run.root.show(run.root.target.DisplayPath)
	if run.root.base == "" || shown == "." || shown == "" || shown[0] == '/' {
		return nil
	}
	var levels []ignoreLevel
	dir := run.root.base
	rest := shown
	for {
		var files map[string][]byte
		if t, err := run.se.fs.Resolve(run.budget, dir, fsapi.ResolveOptions{}); err == nil {
			_ = walker.Walk(run.budget, t, fsapi.WalkOptions{DirFiles: ignoreFiles, MaxFileBytes: run.se.cfg.FileMaxBytes}, func(e fsapi.WalkEntry) error {
				files = e.Files
				return fsapi.SkipAll
			})
		}
		if l := levelOf(files); l != nil {
			levels = append(levels, ignoreLevel{Above: rest, Files: l})
		}
		seg, more, ok := cut(rest)
		if !ok {
			return levels
		}
		if dir == "/" {
			dir += seg
		} else {
			dir += "/" + seg
		}
		rest = more
	}
}

// cut splits "a/b/c" into "a" and "b/c"; ok is false when there is no "/"
// (the last segment: the root itself, whose ignore files the walk reads).
func cut(p string) (seg, rest string, ok bool) {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}
