package toolfs

import (
	"context"
	"errors"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/internal/linediff"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// editValue is the structured value of an edit (contract §6.2).
//
// It is the in-process value; MCP sends its summary instead (summary.go).
// replacements is the number of spans replaced, and basisOmitted says that
// the file was too large for Before and After (contract §5.4a [D20]); neither
// is marshalled.
type editValue struct {
	Path         string `json:"path"`
	Before       string `json:"before"`
	After        string `json:"after"`
	replacements int
	basisOmitted bool
}

// edit runs the edit tool (contract §6.9): validation in order, the
// escalation checks, resolve (a final "/" refused, §6.4a [D23]), the
// fs/edit-intent waterfall (default: unguarded; an unobserved directory or
// special file reported as not a regular file, §6.9a [D25]), EditText,
// remedy shaping, then fs/observed of the new version (and the digest of
// the new bytes, [D24]).
func (ts *toolset) edit(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	path, _ := args.String("file_path")
	if blankString(path) {
		return nil, errors.New("file_path must be a non-empty string")
	}
	oldString, _ := args.String("old_string")
	newString, _ := args.String("new_string")
	if oldString == "" {
		return nil, errors.New("old_string must be a non-empty string")
	}
	if oldString == newString {
		return nil, errors.New("old_string and new_string must differ")
	}
	replaceAll, _ := args.Bool("replace_all")
	if err := checkEscalation(args); err != nil {
		return nil, err
	}
	t, err := ts.resolveFile(ctx, path, exec, "edit")
	if err != nil {
		return nil, err
	}
	guard, err := ts.editGuard(ctx, t, args, exec)
	if err != nil {
		return nil, err
	}
	var digest fsapi.Digest
	out, err := ts.fs.EditText(ts.mutationContext(ctx, exec, &digest), t, fsapi.EditRequest{OldString: oldString, NewString: newString, ReplaceAll: replaceAll}, guard)
	if err != nil {
		return nil, fsapi.WithRemedy(err)
	}
	if err := events.FSObserved.Emit(ctx, ts.s, events.Observation{Target: t, Kind: events.Present, Version: out.Version, Digest: digest, Actor: exec}); err != nil {
		return nil, err
	}
	return editValue{Path: t.DisplayPath, Before: out.Before, After: out.After,
		replacements: out.Replacements, basisOmitted: out.BasisOmitted}, nil
}

// renderEditResult words the result by the replace_all argument, even when
// only one occurrence existed (contract §6.9).
func renderEditResult(args tools.Args, v any) []tools.Block {
	replaceAll, _ := args.Bool("replace_all")
	return []tools.Block{tools.TextBlock(renderEdit(v.(editValue).Path, replaceAll))}
}

// editMeta is `{diffs}` over the raw file_path argument (contract §6.9),
// bounded by diffMaxBytes and diffBasisMaxBytes (§5.4a [D20]).
func (ts *toolset) editMeta(args tools.Args, v any) any {
	path, _ := args.String("file_path")
	ev := v.(editValue)
	return linediff.BoundedMeta(path, &ev.Before, ev.After, ev.basisOmitted, ts.diffBounds())
}

// blankString is the contract's blank check (§3.2) for tool arguments.
func blankString(s string) bool { return fsapi.IsBlank(s) }

// editGuard runs the fs/edit-intent waterfall of an edit of t (default:
// unguarded), as edit and multi_edit share it: a refusal comes back with
// its remedy, and an unobserved directory or special file is reported as
// not a regular file (§6.9a [D25]), since no read can make it editable.
func (ts *toolset) editGuard(ctx context.Context, t fsapi.Target, args tools.Args, exec *tools.Exec) (*fsapi.EditGuard, error) {
	guard, err := events.FSEditIntent.Waterfall(ctx, ts.s, events.IntentRequest{Target: t, Actor: exec, Arguments: args},
		func(context.Context) (*fsapi.EditGuard, error) { return nil, nil })
	if err != nil {
		if fsapi.HasCode(err, fsapi.CodeNotObserved) {
			if info, serr := ts.fs.Stat(ctx, t); serr == nil && info != nil && info.Type != fsapi.TypeFile {
				return nil, fsapi.ErrNotRegularFile("edit", t.DisplayPath)
			}
		}
		return nil, fsapi.WithRemedy(err)
	}
	return guard, nil
}
