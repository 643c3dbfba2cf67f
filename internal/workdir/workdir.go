// Package workdir resolves a tool's path argument for the calling session
// (contract §6.4): every fs tool chooses the Resolve cwd the same way.
package workdir

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Resolve resolves path through fsys for a session whose working directory
// is cwd (contract §6.4): an empty cwd leaves the provider's own cwd; when
// neither cwd nor path has a `..` segment cwd is used as spelled (so a
// symlinked spelling stays in the display path); otherwise cwd is
// canonicalised first (realpath, or cwd itself when that fails), so `..`
// walks the physical parent like `cd -P`. Resolve's errors pass through.
func Resolve(ctx context.Context, fsys fsapi.FileSystem, path, cwd string) (fsapi.Target, error) {
	return fsys.Resolve(ctx, path, Options(path, cwd))
}

// Options returns the resolve options Resolve uses for path in a session
// whose working directory is cwd. The search tools resolve their base `.`
// with the options of the searched path (search.md §4.1).
func Options(path, cwd string) fsapi.ResolveOptions {
	if cwd != "" && (HasDotDot(cwd) || HasDotDot(path)) {
		cwd = canonical(cwd)
	}
	return fsapi.ResolveOptions{Cwd: cwd}
}

// canonical returns realpath(dir), or dir itself on error (contract §6.4).
// The session's cwd belongs to the session, not to the fs service, and
// realpath resolves `link/..` physically, as `cd -P` does, which a lexical
// Resolve would not.
func canonical(dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return dir
	}
	return real
}

// HasDotDot reports whether s has a `..` segment: `..` bounded by the start
// or end of the string, `/` or `\` (contract §6.4).
func HasDotDot(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], "..")
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || s[j-1] == '/' || s[j-1] == '\\'
		after := j+2 == len(s) || s[j+2] == '/' || s[j+2] == '\\'
		if before && after {
			return true
		}
		i = j + 1
	}
}
