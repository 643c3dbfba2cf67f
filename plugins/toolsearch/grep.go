package toolsearch

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/dsh-go/dsh/internal/quote"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// The stop reasons of a grep (search.md §6.1).
const (
	stopNone  = "none"
	stopLimit = "limit"
	stopTime  = "time"
)

// grepMatch is one kept match in the structured value (search.md §6.1):
// the file's path shown relative to B (invalid bytes as U+FFFD), the line
// number and the preview.
type grepMatch struct {
	Path       string `json:"path"`
	LineNumber int    `json:"lineNumber"`
	Line       string `json:"line"`
}

// grepValue is the structured value of a grep call (search.md §6.1). raw
// holds each page match's path as stored, for quoting; the unexported
// limits are what the footer names.
type grepValue struct {
	Root          string      `json:"root"`
	Offset        int         `json:"offset"`
	Matches       []grepMatch `json:"matches"`
	TotalMatches  int         `json:"totalMatches"`
	FilesSearched int         `json:"filesSearched"`
	Stop          string      `json:"stop"`
	SkippedLarge  int         `json:"skippedLarge"`
	Unreadable    int         `json:"unreadable"`
	raw           []string
	files         int // distinct files among all kept matches (§6.8)
	maxKept       int
	timeoutMs     int64
	fileMaxBytes  int64
}

// CheckOutput implements tools.OutputChecker.
func (v grepValue) CheckOutput() error {
	if v.Matches == nil {
		return errors.New("matches must be an array")
	}
	switch v.Stop {
	case stopNone, stopLimit, stopTime:
		return nil
	}
	return errors.New(`stop "` + v.Stop + `" is not one of none, limit, time`)
}

// grepRequest is a validated grep call.
type grepRequest struct {
	m       *matcher
	include *globPattern
	path    string
	offset  float64
}

// grep runs the grep tool (search.md §6).
func (se *searcher) grep(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	req, err := parseGrep(args)
	if err != nil {
		return nil, err
	}
	v, err := se.runGrep(ctx, req, exec)
	return v, aborted(ctx, "grep", err)
}

// parseGrep runs the checks of search.md §6.2, in order.
func parseGrep(args tools.Args) (grepRequest, error) {
	pattern, _ := args.String("pattern")
	if pattern == "" {
		return grepRequest{}, errors.New("pattern must be a non-empty string")
	}
	path, err := parsePath(args)
	if err != nil {
		return grepRequest{}, err
	}
	include, hasInclude := args.String("include")
	if hasInclude {
		switch {
		case fsapi.IsBlank(include):
			return grepRequest{}, errors.New("include must be a non-empty glob when given")
		case strings.HasPrefix(include, "!"):
			return grepRequest{}, errors.New(`include must be a positive glob filter; negated patterns ("!…") are not supported`)
		case hasListComma(include):
			return grepRequest{}, errors.New("include must be one glob, not a comma-separated list (use {a,b} alternation instead)")
		}
	}
	offset, err := parseOffset(args)
	if err != nil {
		return grepRequest{}, err
	}
	ignoreCase, _ := args.Bool("ignore_case")
	m, err := compilePattern(pattern, ignoreCase)
	if err != nil {
		return grepRequest{}, err
	}
	req := grepRequest{m: m, path: path, offset: offset}
	if hasInclude {
		pat, reason := compileGlob(include)
		if reason != "" {
			return grepRequest{}, errInvalidGlob("grep include", reason)
		}
		req.include = &pat
	}
	return req, nil
}

// runGrep checks the capabilities, resolves and stats the root, searches
// and pages (search.md §6.3–§6.5).
func (se *searcher) runGrep(ctx context.Context, req grepRequest, exec *tools.Exec) (grepValue, error) {
	walker, canWalk := se.fs.(fsapi.Walker)
	opener, canOpen := se.fs.(fsapi.Opener)
	if !canWalk || !canOpen {
		return grepValue{}, errUnavailable("grep")
	}
	budget, cancel := se.budget(ctx) // measured from the start of the body (§4.8)
	defer cancel()
	r, err := se.resolveRoot(ctx, req.path, exec)
	if err != nil {
		return grepValue{}, err
	}
	display := r.target.DisplayPath
	info, err := se.fs.Stat(ctx, r.target)
	if err != nil {
		return grepValue{}, err
	}
	if info == nil {
		return grepValue{}, fsapi.ErrSearchNotFound(display, nil)
	}
	run := &grepRun{se: se, req: req, root: r, opener: opener, budget: budget, ctx: ctx, stop: stopNone, progress: exec.Progress()}
	switch info.Type {
	case fsapi.TypeFile:
		err = run.searchFileRoot(info)
	case fsapi.TypeDirectory:
		if !inVCS(r.show(display)) {
			err = run.searchTree(walker)
		}
	default:
		return grepValue{}, fsapi.ErrSearchNotRegularFile(display)
	}
	if err != nil {
		return grepValue{}, err
	}
	return run.value(display)
}

// value pages the collected matches (search.md §4.6): at most
// grepMaxMatches, and the page ends before the match whose group lines
// would take it past grepMaxBytes, always keeping one [S10].
func (run *grepRun) value(display string) (grepValue, error) {
	se := run.se
	n := len(run.matches)
	start, end, err := pageBounds(run.req.offset, n, se.cfg.GrepMaxMatches, display, "matches")
	if err != nil {
		return grepValue{}, err
	}
	v := grepValue{
		Root: fsapi.Display(run.root.show(display)), Offset: int(run.req.offset), Matches: make([]grepMatch, 0, end-start),
		TotalMatches: n, files: len(run.paths), FilesSearched: run.filesSearched, Stop: run.stop, SkippedLarge: run.skippedLarge, Unreadable: run.unreadable,
		maxKept: se.cfg.MaxKept, timeoutMs: se.cfg.TimeoutMs, fileMaxBytes: se.cfg.FileMaxBytes,
	}
	size := 0
	for i, m := range run.matches[start:end] {
		p := run.paths[m.file]
		cost := len("\nLine ") + len(strconv.Itoa(m.number)) + len(": ") + len(m.line)
		if i == 0 || m.file != run.matches[start+i-1].file {
			cost += len("\n\n") + len(quote.Name(p))
		}
		if size += cost; i > 0 && size > se.cfg.GrepMaxBytes {
			break
		}
		v.raw = append(v.raw, p)
		v.Matches = append(v.Matches, grepMatch{Path: fsapi.Display(p), LineNumber: m.number, Line: m.line})
	}
	return v, nil
}
