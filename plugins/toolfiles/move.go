package toolfiles

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// move runs the move tool: validation, the source named without following
// a final link (absent: FS_NOT_FOUND `cannot move "<p>": not found`), the
// destination (one ending in / gets the source's name appended), each
// refused FS_PROTECTED when protected (fsapi.Refuse),
// fs/remove-intent for the source (with its type), fs/write-intent for the
// destination, the provider's Move, then fs/observed: the source absent,
// the destination present at its new version. Text: `Moved <src> to
// <dst>`.
func (ts *toolset) move(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	source, _ := args.String("source")
	destination, _ := args.String("destination")
	if fsapi.IsBlank(source) {
		return nil, errors.New("source must be a non-empty string")
	}
	if fsapi.IsBlank(destination) {
		return nil, errors.New("destination must be a non-empty string")
	}
	overwrite, _ := args.Bool("overwrite")
	src, info, err := ts.resolveEntry(ctx, source, exec, "move")
	if err != nil {
		return nil, err
	}
	if info == nil {
		return nil, fsapi.ErrNotFound("move", src.DisplayPath, nil)
	}
	if err := finalSlash(source, src, info, "move"); err != nil {
		return nil, err
	}
	if strings.HasSuffix(destination, "/") {
		destination += filepath.Base(src.DisplayPath)
	}
	dst, _, err := ts.resolveEntry(ctx, destination, exec, "move")
	if err != nil {
		return nil, err
	}
	guard, err := events.FSRemoveIntent.Waterfall(ctx, ts.s, events.IntentRequest{Target: src, Actor: exec, Arguments: args, Type: info.Type},
		func(context.Context) (*fsapi.RemoveGuard, error) { return nil, nil })
	if err != nil {
		return nil, fsapi.WithRemedy(err)
	}
	intent, err := events.FSWriteIntent.Waterfall(ctx, ts.s, events.IntentRequest{Target: dst, Actor: exec, Arguments: args},
		func(context.Context) (*fsapi.WriteIntent, error) { return nil, nil })
	if err != nil {
		return nil, fsapi.WithRemedy(err)
	}
	out, err := ts.fs.(fsapi.Mover).Move(ctx, src, dst, fsapi.MoveRequest{SourceType: info.Type, SourceGuard: guard, Intent: intent, Overwrite: overwrite})
	if err != nil {
		return nil, fsapi.WithRemedy(err)
	}
	if err := events.FSObserved.Emit(ctx, ts.s, events.Observation{Target: src, Kind: events.Absent, Actor: exec}); err != nil {
		return nil, err
	}
	if err := events.FSObserved.Emit(ctx, ts.s, events.Observation{Target: dst, Kind: events.Present, Version: out.Version, Actor: exec}); err != nil {
		return nil, err
	}
	return "Moved " + fsapi.Display(src.DisplayPath) + " to " + fsapi.Display(dst.DisplayPath), nil
}
