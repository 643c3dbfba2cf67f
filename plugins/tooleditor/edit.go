package tooleditor

import (
	"context"
	"errors"
	"math"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// strReplace runs the str_replace command (editor.md §10): one literal
// EditText under the policy's guard, its matching errors re-worded.
func (e *editor) strReplace(ctx context.Context, c call, exec *tools.Exec) (any, error) {
	return e.mutate(ctx, c, exec, "edit", errNotRegular, func(ctx context.Context, t fsapi.Target, guard *fsapi.EditGuard) (fsapi.EditOutcome, error) {
		out, err := e.fs.EditText(ctx, t, fsapi.EditRequest{OldString: c.oldStr, NewString: c.newStr}, guard)
		var fe *fsapi.Error
		if err == nil || !errors.As(err, &fe) {
			return out, fsapi.WithRemedy(err)
		}
		var ml *fsapi.MatchLines
		switch {
		case fe.Code == fsapi.CodeEditNotFound:
			return out, errNoMatch(fe, c.oldStr, t.DisplayPath)
		case fe.Code == fsapi.CodeAmbiguousEdit && errors.As(err, &ml):
			return out, errAmbiguous(fe, ml, c.oldStr)
		}
		return out, fsapi.WithRemedy(err)
	})
}

// insert runs the insert command (editor.md §11): one InsertText under the
// policy's guard, a line out of range re-worded. An insert_line beyond
// int64 is out of range whatever the file.
func (e *editor) insert(ctx context.Context, c call, exec *tools.Exec) (any, error) {
	ins := e.fs.(fsapi.Inserter) // checked by parse
	line := int64(-1)
	if c.line >= math.MinInt64 && c.line < math.MaxInt64 {
		line = int64(c.line)
	}
	return e.mutate(ctx, c, exec, "insert into", errNotInsertable, func(ctx context.Context, t fsapi.Target, guard *fsapi.EditGuard) (fsapi.EditOutcome, error) {
		out, err := ins.InsertText(ctx, t, fsapi.InsertRequest{Line: line, Text: c.newStr}, guard)
		var lr *fsapi.LineRangeError
		if errors.As(err, &lr) {
			return out, errInsertLine(c.line, lr.Lines)
		}
		return out, fsapi.WithRemedy(err)
	})
}

// mutate is the frame str_replace and insert share (editor.md §10 steps
// 1–3, 5, 6): resolve for op (a final "/" refused, contract §6.4a [D23]),
// fs/edit-intent (default: unguarded), one Stat (an absent target is
// recorded and reported missing, a directory and a special file refused),
// the provider call, then fs/observed of the new version and the digest of
// the new bytes ([D24]). notRegular words the refusal of a special file. A
// target the policy refuses as unobserved is stat'ed and, when it is a
// directory or a special file, refused as such instead, since no view can
// make it editable [R15]. run gets the context of the provider call: it
// carries the progress reporter and the digest sink.
func (e *editor) mutate(ctx context.Context, c call, exec *tools.Exec, op string, notRegular func(p string) error,
	run func(context.Context, fsapi.Target, *fsapi.EditGuard) (fsapi.EditOutcome, error)) (any, error) {
	t, err := fsapi.ResolveFile(ctx, e.fs, c.path, exec.Cwd(), op)
	if err != nil {
		return nil, err
	}
	guard, err := events.FSEditIntent.Waterfall(ctx, e.s, events.IntentRequest{Target: t, Actor: exec, Arguments: c.args},
		func(context.Context) (*fsapi.EditGuard, error) { return nil, nil })
	if err != nil {
		if fsapi.HasCode(err, fsapi.CodeNotObserved) {
			if info, serr := e.fs.Stat(ctx, t); serr == nil && info != nil && info.Type != fsapi.TypeFile {
				return nil, e.notFile(t, info, op, notRegular)
			}
		}
		return nil, fsapi.WithRemedy(err)
	}
	info, err := e.fs.Stat(ctx, t)
	switch {
	case err != nil:
		return nil, err
	case info == nil:
		e.observeAbsent(ctx, t, exec)
		return nil, errMissing("edit", t.DisplayPath)
	case info.Type != fsapi.TypeFile:
		return nil, e.notFile(t, info, op, notRegular)
	}
	var digest fsapi.Digest
	out, err := run(fsapi.WithDigestSink(fsapi.WithBytesProgress(ctx, exec.Progress().Bytes("bytes written")), func(d fsapi.Digest) { digest = d }), t, guard)
	if err != nil {
		return nil, err
	}
	if err := events.FSObserved.Emit(ctx, e.s, events.Observation{Target: t, Kind: events.Present, Version: out.Version, Digest: digest, Actor: exec}); err != nil {
		return nil, err
	}
	return result{Command: c.command, Path: t.DisplayPath, before: &out.Before, after: out.After, omitted: out.BasisOmitted,
		text: "The file " + fsapi.Display(t.DisplayPath) + " has been edited successfully."}, nil
}

// notFile is the refusal of str_replace or insert (op) on a directory or a
// special file (editor.md §10 step 3).
func (e *editor) notFile(t fsapi.Target, info *fsapi.Info, op string, notRegular func(p string) error) error {
	if info.Type == fsapi.TypeDirectory {
		return errDirectory(op, t.DisplayPath)
	}
	return notRegular(t.DisplayPath)
}

// errNotRegular is FS_NOT_REGULAR_FILE `cannot edit "<p>": not a regular
// file` for str_replace on a special file.
func errNotRegular(p string) error { return fsapi.ErrNotRegularFile("edit", p) }
