package toolsearch

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// globValue is the structured value of a glob call (search.md §5.1): the
// search root shown relative to B, the page's offset, the page's paths
// shown relative to B (invalid bytes as U+FFFD), the number of matching
// files, the number kept and the directories that could not be read. raw
// keeps the page's paths as stored, for quoting.
type globValue struct {
	Root       string   `json:"root"`
	Offset     int      `json:"offset"`
	Paths      []string `json:"paths"`
	TotalPaths int      `json:"totalPaths"`
	KeptPaths  int      `json:"keptPaths"`
	Unreadable int      `json:"unreadable"`
	raw        []string
	maxKept    int
}

// CheckOutput implements tools.OutputChecker.
func (v globValue) CheckOutput() error {
	if v.Paths == nil {
		return errors.New("paths must be an array")
	}
	return nil
}

// glob runs the glob tool (search.md §5).
func (se *searcher) glob(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	pattern, _ := args.String("pattern")
	if fsapi.IsBlank(pattern) {
		return nil, errors.New("pattern must be a non-empty string")
	}
	path, err := parsePath(args)
	if err != nil {
		return nil, err
	}
	offset, err := parseOffset(args)
	if err != nil {
		return nil, err
	}
	pat, reason := compileGlob(pattern)
	if reason != "" {
		return nil, errInvalidGlob("glob pattern", reason)
	}
	v, err := se.runGlob(ctx, pat, path, offset, exec)
	return v, aborted(ctx, "glob", err)
}

// globHit is one matching file: its path below the root, its modification
// time and its position in path order.
type globHit struct {
	rel string
	mod time.Time
	seq int
}

// newer orders hits newest first, equal times in path order (search.md §5.3
// step 6).
func newer(a, b globHit) int {
	if c := b.mod.Compare(a.mod); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// oldestFirst is a heap whose top is the hit that sorts last (the one to
// drop when more than maxKept are held).
type oldestFirst []globHit

func (h oldestFirst) Len() int           { return len(h) }
func (h oldestFirst) Less(i, j int) bool { return newer(h[i], h[j]) > 0 }
func (h oldestFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *oldestFirst) Push(x any)        { *h = append(*h, x.(globHit)) }
func (h *oldestFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (se *searcher) runGlob(ctx context.Context, pat globPattern, path string, offset float64, exec *tools.Exec) (globValue, error) {
	walker, ok := se.fs.(fsapi.Walker)
	if !ok {
		return globValue{}, errUnavailable("glob")
	}
	budget, cancel := se.budget(ctx) // measured from the start of the body (§4.8)
	defer cancel()
	r, err := se.resolveRoot(ctx, path, exec)
	if err != nil {
		return globValue{}, err
	}
	display := r.target.DisplayPath
	info, err := se.fs.Stat(ctx, r.target)
	switch {
	case err != nil:
		return globValue{}, err
	case info == nil:
		return globValue{}, fsapi.ErrSearchNotFound(display, nil)
	case info.Type != fsapi.TypeDirectory:
		return globValue{}, fsapi.ErrSearchNotDirectory(display)
	}
	v := globValue{Root: fsapi.Display(r.show(display)), maxKept: se.cfg.MaxKept}
	var kept oldestFirst
	if !inVCS(r.show(display)) {
		seq, seen, progress := 0, 0, exec.Progress()
		err := walker.Walk(budget, r.target, fsapi.WalkOptions{FileInfo: true}, func(e fsapi.WalkEntry) error {
			if e.Path == "." {
				return nil
			}
			if isVCS(e.Name) {
				return skipEntry(e)
			}
			switch e.Type {
			case fsapi.TypeDirectory:
				if e.Opened && e.Err != nil {
					v.Unreadable++
				}
			case fsapi.TypeFile:
				seen++
				progress.Report(float64(seen), 0, "files searched")
				if pat.Match(e.Path, e.Name) {
					v.TotalPaths++
					heap.Push(&kept, globHit{rel: e.Path, mod: e.ModTime, seq: seq})
					seq++
					if kept.Len() > se.cfg.MaxKept {
						heap.Pop(&kept)
					}
				}
			}
			return nil
		})
		if err != nil {
			var fe *fsapi.Error
			if errors.As(err, &fe) && fe.Code == fsapi.CodeAborted {
				return globValue{}, errAborted("glob") // the budget or the caller
			}
			return globValue{}, err
		}
	}
	hits := []globHit(kept)
	slices.SortFunc(hits, newer)
	v.KeptPaths = len(hits)
	start, end, err := pageBounds(offset, len(hits), se.cfg.GlobMaxResults, display, "paths")
	if err != nil {
		return globValue{}, err
	}
	v.Offset = int(offset)
	v.Paths = make([]string, 0, end-start)
	for _, h := range hits[start:end] {
		p := r.entryPath(h.rel)
		v.raw = append(v.raw, p)
		v.Paths = append(v.Paths, fsapi.Display(p))
	}
	return v, nil
}
