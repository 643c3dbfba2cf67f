package toolfs

import (
	"context"
	"errors"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/internal/linediff"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// writeValue is the structured value of a write (contract §6.2): Before is
// nil (JSON null) for a create or a prior file that was not text.
//
// It is the in-process value; MCP sends its summary instead (summary.go).
// basisOmitted says that the prior file or the content was too large for
// Before and After (contract §5.4a [D20]); it is not marshalled.
type writeValue struct {
	Path         string          `json:"path"`
	Operation    fsapi.Operation `json:"operation"`
	Before       *string         `json:"before"`
	After        string          `json:"after"`
	basisOmitted bool
}

// write runs the write tool (contract §6.8): validation, the escalation
// checks, resolve, the fs/write-intent waterfall (default: unconditional),
// WriteText, remedy shaping, then fs/observed of the new version (and the
// digest of the bytes written, [D24]). The tool makes no stat call.
func (ts *toolset) write(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	path, _ := args.String("file_path")
	if blankString(path) {
		return nil, errors.New("file_path must be a non-empty string")
	}
	content, _ := args.String("content")
	if err := checkEscalation(args); err != nil {
		return nil, err
	}
	t, err := ts.resolveFile(ctx, path, exec, "write")
	if err != nil {
		return nil, err
	}
	intent, err := events.FSWriteIntent.Waterfall(ctx, ts.s, events.IntentRequest{Target: t, Actor: exec, Arguments: args},
		func(context.Context) (*fsapi.WriteIntent, error) { return nil, nil })
	if err != nil {
		return nil, fsapi.WithRemedy(err)
	}
	var digest fsapi.Digest
	out, err := ts.fs.WriteText(ts.mutationContext(ctx, exec, &digest), t, content, intent)
	if err != nil {
		return nil, fsapi.WithRemedy(err)
	}
	if err := events.FSObserved.Emit(ctx, ts.s, events.Observation{Target: t, Kind: events.Present, Version: out.Version, Digest: digest, Actor: exec}); err != nil {
		return nil, err
	}
	return writeValue{Path: t.DisplayPath, Operation: out.Operation, Before: out.Before, After: out.After, basisOmitted: out.BasisOmitted}, nil
}

func renderWriteValue(v any) string {
	wv := v.(writeValue)
	return renderWrite(wv.Path, wv.Operation)
}

// writeMeta is `{diffs}` over the raw file_path argument (contract §6.8),
// bounded by diffMaxBytes and diffBasisMaxBytes (§5.4a [D20]).
func (ts *toolset) writeMeta(args tools.Args, v any) any {
	path, _ := args.String("file_path")
	wv := v.(writeValue)
	// A create has no hunk whatever its size; an update past the basis
	// has no texts to diff.
	omitted := wv.basisOmitted && wv.Operation == fsapi.OperationUpdate
	return linediff.BoundedMeta(path, wv.Before, wv.After, omitted, ts.diffBounds())
}
