package fslocal

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// MakeDirs creates the directory t and its missing parents, each 0777 minus
// the umask and fsynced into its parent, and returns how many it created
// (fsapi.DirMaker). An existing directory is no error (0); one created by a
// racer meanwhile neither. An existing entry of another type at t fails
// FS_NOT_DIRECTORY `cannot mkdir "<p>": a file that is not a directory
// exists there`; FS_PROTECTED below a protected directory (Refuse).
// FS_ABORTED `mkdir aborted` on entry and between
// directories; EACCES or EPERM FS_PERMISSION_DENIED `cannot mkdir "<p>":
// permission denied`; a redirection outside the root FS_SANDBOX_DENIED.
func (p *Provider) MakeDirs(ctx context.Context, t fsapi.Target) (int, error) {
	const op = "mkdir"
	if err := p.Refuse(ctx, t, op); err != nil {
		return 0, err
	}
	var missing []string
	for at := t.Key; ; at = filepath.Dir(at) {
		if err := ctx.Err(); err != nil {
			return 0, fsapi.ErrAborted(op, err)
		}
		fi, err := p.statKey(at)
		if err == nil {
			if !fi.IsDir() {
				return 0, fsapi.ErrExistsNotDirectory(t.DisplayPath)
			}
			break
		}
		if !absent(err) {
			return 0, coded(op, t.DisplayPath, err)
		}
		missing = append(missing, at)
		if at == "/" || at == p.tree.base {
			break
		}
	}
	made := 0
	for i := len(missing) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return made, fsapi.ErrAborted(op, err)
		}
		err := p.tree.mkdir(missing[i], 0o777)
		if errors.Is(err, fs.ErrExist) {
			if fi, serr := p.statKey(missing[i]); serr == nil && fi.IsDir() {
				continue
			}
			return made, fsapi.ErrExistsNotDirectory(t.DisplayPath)
		}
		if err != nil {
			return made, coded(op, t.DisplayPath, err)
		}
		made++
		if err := p.syncDir(nil, filepath.Dir(missing[i])); err != nil {
			return made, coded(op, t.DisplayPath, err)
		}
	}
	return made, nil
}

var _ fsapi.DirMaker = (*Provider)(nil)
