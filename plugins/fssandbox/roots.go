package fssandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// roots are the writable roots R of one activation (sandbox.md §2.3):
// canonical absolute directories, first the workspace, then the extra roots,
// without repeats. shown is their model-visible list, `"<r1>", "<r2>"`.
type roots struct {
	list  []string
	shown string
}

// buildRoots makes R from cfg, with relative values taken against base (the
// process working directory; dshhost has already made the workspace
// absolute). It reports, in key order, `fssandbox: workspace must be an
// existing directory` and `fssandbox: writableRoots[<i>] must be an existing
// directory` for every entry that is not one after symlinks.
func buildRoots(cfg Config, base string) (roots, error) {
	var errs []error
	ws := cfg.Workspace
	if ws == "" {
		ws = base
	}
	ws = absolute(ws, base)
	canonWS, ok := canonicalDir(ws)
	if !ok {
		errs = append(errs, errors.New("fssandbox: workspace must be an existing directory"))
		canonWS = ws
	}
	list := []string{canonWS}
	for i, r := range cfg.WritableRoots {
		c, ok := canonicalDir(absolute(r, canonWS))
		if !ok {
			errs = append(errs, fmt.Errorf("fssandbox: writableRoots[%d] must be an existing directory", i))
			continue
		}
		list = appendNew(list, c)
	}
	if len(errs) > 0 {
		return roots{}, errors.Join(errs...)
	}
	shown := make([]string, len(list))
	for i, r := range list {
		shown[i] = `"` + fsapi.Display(r) + `"`
	}
	return roots{list: list, shown: strings.Join(shown, ", ")}, nil
}

// absolute joins a relative p to base without cleaning it, so that the
// realpath that follows resolves each symlink before the `..` after it
// (sandbox.md §2.3 step 2).
func absolute(p, base string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return base + string(filepath.Separator) + p
}

// canonicalDir returns realpath(p) when it is an existing directory.
func canonicalDir(p string) (string, bool) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	return real, true
}

// appendNew appends r unless it is already in list (byte for byte).
func appendNew(list []string, r string) []string {
	for _, x := range list {
		if x == r {
			return list
		}
	}
	return append(list, r)
}

// contain reports whether the real location l equals a root or lies under
// one, component-wise on bytes: `W/proj2/x` is not under `W/proj`
// (sandbox.md §2.3). Every absolute l is under the root "/".
func (rs roots) contain(l string) bool {
	for _, r := range rs.list {
		if l == r || strings.HasPrefix(l, r) && (strings.HasSuffix(r, "/") || l[len(r)] == '/') {
			return true
		}
	}
	return false
}
