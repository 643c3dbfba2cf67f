// Package sessionpath resolves a tool's path argument for the calling
// session (contract §6.4), the rule every filesystem tool shares (toolfs,
// and toolsearch by search.md §4.1).
package sessionpath

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Options returns the resolve options for path in a session whose cwd is
// cwd (contract §6.4): without a session cwd the provider's cwd applies;
// when neither cwd nor path has a `..` segment the cwd is used as spelled
// (so a symlinked spelling stays in the display path); otherwise cwd is
// canonicalised first (realpath, or cwd itself on error), so `..` walks the
// physical parent like `cd -P`. That realpath is the one place a tool looks
// at the disk directly: the session's cwd belongs to the session, not to
// the fs service.
func Options(path, cwd string) fsapi.ResolveOptions {
	if cwd != "" && (HasDotDot(cwd) || HasDotDot(path)) {
		if real, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = real
		}
	}
	return fsapi.ResolveOptions{Cwd: cwd}
}

// Resolve resolves path with fsys for a session whose cwd is cwd, with the
// options of [Options].
func Resolve(ctx context.Context, fsys fsapi.FileSystem, path, cwd string) (fsapi.Target, error) {
	return fsys.Resolve(ctx, path, Options(path, cwd))
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
