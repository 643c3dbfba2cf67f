package toolfiles

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// mkdir runs the mkdir tool: validation, resolve (a symlink to a directory
// is that directory), the refusal of a path below a protected directory
// (FS_PROTECTED), the fs/write-intent guards for each directory it
// will create, outermost first (a refusal fails the call before anything
// is created; the decider's answer is ignored, as the editor's create
// ignores it), then the provider's MakeDirs. Nothing is observed: a
// directory has no content to read. Text: `Created directory <p>`, or
// `Directory <p> already exists`.
func (ts *toolset) mkdir(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	path, _ := args.String("path")
	if fsapi.IsBlank(path) {
		return nil, errors.New("path must be a non-empty string")
	}
	opts := fsapi.CwdOptions(path, exec.Cwd())
	t, err := ts.fs.Resolve(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	if err := fsapi.Refuse(ctx, ts.fs, t, "mkdir"); err != nil {
		return nil, err
	}
	var missing []fsapi.Target
	for at := t; ; {
		info, err := ts.fs.Stat(ctx, at)
		if err != nil {
			return nil, err
		}
		if info != nil {
			if info.Type != fsapi.TypeDirectory {
				return nil, fsapi.ErrExistsNotDirectory(at.DisplayPath)
			}
			break
		}
		missing = append(missing, at)
		parent := filepath.Dir(at.DisplayPath)
		if parent == at.DisplayPath {
			break
		}
		if at, err = ts.fs.Resolve(ctx, parent, opts); err != nil {
			return nil, err
		}
	}
	if len(missing) == 0 {
		return "Directory " + fsapi.Display(t.DisplayPath) + " already exists", nil
	}
	for i := len(missing) - 1; i >= 0; i-- {
		_, err := events.FSWriteIntent.Waterfall(ctx, ts.s, events.IntentRequest{Target: missing[i], Actor: exec, Arguments: args},
			func(context.Context) (*fsapi.WriteIntent, error) { return nil, nil })
		if err != nil {
			return nil, err
		}
	}
	n, err := ts.fs.(fsapi.DirMaker).MakeDirs(ctx, t)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return "Directory " + fsapi.Display(t.DisplayPath) + " already exists", nil
	}
	return "Created directory " + fsapi.Display(t.DisplayPath), nil
}
