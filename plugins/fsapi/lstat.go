package fsapi

import "context"

// Lstater is the optional capability of examining a path without following
// its final symlink (contract §2.2, §3.4). Lstat returns nil and no error when
// the path is absent; a blank path fails FS_NOT_FOUND.
type Lstater interface {
	Lstat(ctx context.Context, path string, opts ResolveOptions) (*PathInfo, error)
}
