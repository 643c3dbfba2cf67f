package fsapi

import (
	"context"
	"strings"

	"github.com/dsh-go/dsh/host"
)

// Key is the service key of the fs service ("fs"). Providers publish a
// FileSystem with Key.Provide; consumers declare it with host.Inject(Key) and
// read it with Key.Must. Contract §1.
var Key = host.NewKey[FileSystem]("fs")

// ResolveOptions tunes Resolve and Lstat (contract §3.2). Tools build them
// with [CwdOptions].
type ResolveOptions struct {
	// Cwd is the directory a relative path is joined to; empty means the
	// provider's own default cwd.
	Cwd string
	// RealCwd joins a relative path to the real location of Cwd instead of
	// its spelling: the provider resolves Cwd's symlinks itself (falling
	// back to the spelling when it cannot), so `..` walks the physical
	// parent, like `cd -P` (contract §6.4). It has no effect without Cwd.
	RealCwd bool
}

// CwdOptions returns the options a tool resolves path with for a
// conversation whose working directory is cwd ("" without one), as
// contract §6.4 chooses them: no cwd leaves the provider's; a cwd is used
// as spelled (a symlinked spelling stays in the display path) unless it or
// path has a `..` segment (a `..` bounded by the start or end of the
// string, `/` or `\`), which sets RealCwd.
func CwdOptions(path, cwd string) ResolveOptions {
	return ResolveOptions{Cwd: cwd, RealCwd: cwd != "" && (hasDotDot(cwd) || hasDotDot(path))}
}

// hasDotDot reports whether s has a `..` segment (contract §6.4).
func hasDotDot(s string) bool {
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

// FileSystem is the required core of the fs service (contract §2.2). Every
// method takes a context and fails with an FS_ABORTED [Error] once it is done
// (contract §2.4). Implementations are safe for concurrent use; WriteText and
// EditText on one target are serialised by the provider's per-target lock
// (contract §3.9).
type FileSystem interface {
	// Resolve maps path (relative to opts.Cwd, or absolute) to a Target.
	// A blank path fails FS_NOT_FOUND (`file_path must be a non-empty
	// string`). Contract §3.2.
	Resolve(ctx context.Context, path string, opts ResolveOptions) (Target, error)
	// Stat reports the type, size and version of t, following symlinks. It
	// returns nil and no error when t is absent and never reads content.
	// Contract §3.4.
	Stat(ctx context.Context, t Target) (*Info, error)
	// ReadText returns the whole regular file as decoded UTF-8 text with a
	// leading BOM removed. Contract §3.5.
	ReadText(ctx context.Context, t Target) (string, error)
	// ListDir returns the direct children of the directory t, sorted by
	// name (contract §6.6.3), never opening a file. Contract §3.6.
	ListDir(ctx context.Context, t Target) ([]DirEntry, error)
	// WriteText atomically creates or replaces t with content under intent
	// (nil: unconditional). Contract §3.7.
	WriteText(ctx context.Context, t Target, content string, intent *WriteIntent) (WriteOutcome, error)
	// EditText atomically replaces literal text in t, guarded by guard (nil:
	// unguarded). Contract §3.8.
	EditText(ctx context.Context, t Target, req EditRequest, guard *EditGuard) (EditOutcome, error)
}
