package toolsearch

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/dsh-go/dsh/internal/jsnum"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// vcsNames are the VCS metadata names both tools skip (search.md §4.4).
var vcsNames = map[string]bool{".git": true, ".svn": true, ".hg": true, ".bzr": true, ".jj": true, ".sl": true}

// isVCS reports whether name is a VCS metadata name (search.md §4.4).
func isVCS(name string) bool { return vcsNames[name] }

// skipEntry is what a walk function returns to leave the entry e out:
// [fsapi.SkipDir] for a directory (not descended, search.md §5.3 step 5),
// nil for anything else. SkipDir on a file or symlink would skip the rest
// of its parent directory (the fs.WalkDir rule), so a `.git` file of a
// worktree would hide its siblings.
func skipEntry(e fsapi.WalkEntry) error {
	if e.Type == fsapi.TypeDirectory {
		return fsapi.SkipDir
	}
	return nil
}

// inVCS reports whether the path rel (a search root shown relative to B)
// has a segment that is a VCS name: the lexical check of search.md §4.4.
func inVCS(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		if isVCS(seg) {
			return true
		}
	}
	return false
}

// root is a call's resolved search root and its base B (search.md §4.1).
type root struct {
	target fsapi.Target
	base   string // B's display path; "" when B could not be resolved
}

// resolveRoot resolves path (the argument, "." when absent) and B for the
// call's session (search.md §4.1).
func (se *searcher) resolveRoot(ctx context.Context, path string, exec *tools.Exec) (root, error) {
	t, err := se.fs.Resolve(ctx, path, fsapi.CwdOptions(path, exec.Cwd()))
	if err != nil {
		return root{}, err
	}
	r := root{target: t}
	if b, err := se.fs.Resolve(ctx, ".", fsapi.CwdOptions(path, exec.Cwd())); err == nil {
		r.base = b.DisplayPath
	}
	return r, nil
}

// show returns the display path p shown relative to B (search.md §4.1): "."
// when it is B, the part after "B/" when it lies under B, else p itself.
func (r root) show(p string) string {
	switch b := r.base; {
	case b == "":
		return p
	case p == b:
		return "."
	case b == "/" && strings.HasPrefix(p, "/"):
		return p[1:]
	case strings.HasPrefix(p, b) && len(p) > len(b) && p[len(b)] == '/':
		return p[len(b)+1:]
	}
	return p
}

// entryPath returns the display path of the entry at rel below the root,
// shown relative to B.
func (r root) entryPath(rel string) string {
	shown := r.show(r.target.DisplayPath)
	switch shown {
	case ".":
		return rel
	case "/":
		return "/" + rel
	}
	return shown + "/" + rel
}

// parseOffset validates the optional offset argument (search.md §5.2 step
// 3, §6.2 step 6): absent is 1, else an integer ≥ 1.
func parseOffset(args tools.Args) (float64, error) {
	v, ok := args.Number("offset")
	if !ok {
		return 1, nil
	}
	if v < 1 || v != math.Trunc(v) || math.IsInf(v, 0) {
		return 0, errors.New("offset must be a positive integer")
	}
	return v, nil
}

// parsePath validates the optional path argument: absent is ".", blank is
// `path must be a non-empty string when given`.
func parsePath(args tools.Args) (string, error) {
	if !args.Has("path") {
		return ".", nil
	}
	p, _ := args.String("path")
	if fsapi.IsBlank(p) {
		return "", errors.New("path must be a non-empty string when given")
	}
	return p, nil
}

// budget returns the call's time budget (search.md §4.8): a context that
// ends when ctx does or timeoutMs after now.
func (se *searcher) budget(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, time.Duration(se.cfg.TimeoutMs)*time.Millisecond)
}

// aborted replaces err by SEARCH_ABORTED when the caller's ctx is done
// (search.md §4.8): every FS_ABORTED raised inside the body, and any other
// failure met after cancellation.
func aborted(ctx context.Context, tool string, err error) error {
	if err != nil && ctx.Err() != nil {
		return errAborted(tool)
	}
	var fe *fsapi.Error
	if errors.As(err, &fe) && fe.Code == fsapi.CodeAborted {
		return errAborted(tool)
	}
	return err
}

// pageBounds returns the page [start, end) of n kept items at offset (a
// validated integer ≥ 1) with size items per page, or FS_NOT_FOUND `offset
// <offset> is out of range for "<p>" (<n> <unit>)` (search.md §4.6).
func pageBounds(offset float64, n, size int, display, unit string) (int, int, error) {
	if offset > float64(n) && !(n == 0 && offset == 1) {
		return 0, 0, fsapi.ErrOffsetOutOfRange(jsnum.Format(offset), display, n, unit)
	}
	start := min(int(offset)-1, n)
	return start, min(n, start+size), nil
}
