package tooleditor

import (
	"context"
	"errors"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// create runs the create command (editor.md §9): refuse an existing path,
// ask fs/write-intent (only a guard's veto counts; the decider's answer is
// not used), write with CreateIfAbsent, whatever the answer, then observe
// the new version with the digest of the bytes written ([D24]).
func (e *editor) create(ctx context.Context, c call, exec *tools.Exec) (any, error) {
	t, err := fsapi.ResolveFile(ctx, e.fs, c.path, exec.Cwd(), "write")
	if err != nil {
		return nil, err
	}
	info, err := e.fs.Stat(ctx, t)
	if err != nil {
		return nil, err
	}
	if info != nil {
		return nil, errExists(t.DisplayPath)
	}
	if _, err := events.FSWriteIntent.Waterfall(ctx, e.s, events.IntentRequest{Target: t, Actor: exec, Arguments: c.args},
		func(context.Context) (*fsapi.WriteIntent, error) { return nil, nil }); err != nil {
		return nil, fsapi.WithRemedy(err)
	}
	var digest fsapi.Digest
	out, err := e.fs.WriteText(fsapi.WithDigestSink(fsapi.WithBytesProgress(ctx, exec.Progress().Bytes("bytes written")), func(d fsapi.Digest) { digest = d }),
		t, c.fileText, &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent})
	if err != nil {
		var fe *fsapi.Error
		if errors.As(err, &fe) && fe.Code == fsapi.CodeNotObserved {
			return nil, errExists(t.DisplayPath) // it appeared after the Stat
		}
		return nil, fsapi.WithRemedy(err)
	}
	if err := events.FSObserved.Emit(ctx, e.s, events.Observation{Target: t, Kind: events.Present, Version: out.Version, Digest: digest, Actor: exec}); err != nil {
		return nil, err
	}
	return result{Command: cmdCreate, Path: t.DisplayPath, text: "New file created successfully at: " + fsapi.Display(t.DisplayPath)}, nil
}

// errExists is the uncoded `File already exists at: <p>. Cannot overwrite
// files using command `create`.` (editor.md §9).
func errExists(p string) error {
	return errors.New("File already exists at: " + fsapi.Display(p) + ". Cannot overwrite files using command `create`.")
}
