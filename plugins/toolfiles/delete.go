package toolfiles

import (
	"context"
	"errors"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// delete runs the delete tool: validation, the path named without
// following a final link (absent: FS_NOT_FOUND `cannot delete "<p>": not
// found`; protected: FS_PROTECTED; a final "/" on a file: FS_INVALID_PATH),
// fs/remove-intent with its type, the provider's Remove, then
// fs/observed absent. Text: `Deleted file <p>`, `Deleted directory <p>`,
// `Deleted symlink <p>` or `Deleted <p>` (a special file).
func (ts *toolset) delete(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	path, _ := args.String("path")
	if fsapi.IsBlank(path) {
		return nil, errors.New("path must be a non-empty string")
	}
	t, info, err := ts.resolveEntry(ctx, path, exec, "delete")
	if err != nil {
		return nil, err
	}
	if info == nil {
		return nil, fsapi.ErrNotFound("delete", t.DisplayPath, nil)
	}
	if err := finalSlash(path, t, info, "delete"); err != nil {
		return nil, err
	}
	guard, err := events.FSRemoveIntent.Waterfall(ctx, ts.s, events.IntentRequest{Target: t, Actor: exec, Arguments: args, Type: info.Type},
		func(context.Context) (*fsapi.RemoveGuard, error) { return nil, nil })
	if err != nil {
		return nil, fsapi.WithRemedy(err)
	}
	if err := ts.fs.(fsapi.Remover).Remove(ctx, t, fsapi.RemoveRequest{Type: info.Type, Guard: guard}); err != nil {
		return nil, fsapi.WithRemedy(err)
	}
	if err := events.FSObserved.Emit(ctx, ts.s, events.Observation{Target: t, Kind: events.Absent, Actor: exec}); err != nil {
		return nil, err
	}
	what := "Deleted "
	switch info.Type {
	case fsapi.TypeFile, fsapi.TypeDirectory, fsapi.TypeSymlink:
		what += string(info.Type) + " "
	}
	return what + fsapi.Display(t.DisplayPath), nil
}
