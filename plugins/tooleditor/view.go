package tooleditor

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unsafe"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// view runs the view command (editor.md §8.1): exactly one Stat, then a
// directory listing, or the file's rows streamed with the line count, the
// range checks and an fs/observed of the version Stat saw, with the digest
// of the content the stream read to its end ([D24]).
func (e *editor) view(ctx context.Context, c call, exec *tools.Exec) (any, error) {
	t, err := e.fs.Resolve(ctx, c.path, fsapi.CwdOptions(c.path, exec.Cwd()))
	if err != nil {
		return nil, err
	}
	info, err := e.fs.Stat(ctx, t)
	if err != nil {
		return nil, err
	}
	switch {
	case info == nil:
		e.observeAbsent(ctx, t, exec)
		return nil, errMissing("view", t.DisplayPath)
	case info.Type == fsapi.TypeDirectory:
		if c.hasRange {
			return nil, errors.New("The `view_range` parameter is not allowed when `path` points to a directory.")
		}
		text, err := e.tree(ctx, t)
		if err != nil {
			return nil, err
		}
		return result{Command: cmdView, Path: t.DisplayPath, text: text}, nil
	case info.Type != fsapi.TypeFile:
		return nil, errNotViewable(t.DisplayPath)
	case strings.HasSuffix(c.path, "/"):
		// A final "/" names a directory ([D23]); only a directory's view
		// takes one.
		return nil, fsapi.ErrFinalSlash("view", t.DisplayPath)
	}
	var digest fsapi.Digest
	chunks, err := fsapi.ScanBytes(fsapi.WithDigestSink(ctx, func(d fsapi.Digest) { digest = d }), e.fs, t)
	if err != nil {
		return nil, e.readFailure(ctx, t, info, exec, err)
	}
	var size int64
	if info.HasSize && !c.hasRange {
		size = info.Size
	}
	rows := newRowScanner(c, e.cfg.MaxOutputChars, size)
	for chunk, err := range chunks {
		if err != nil {
			return nil, e.readFailure(ctx, t, info, exec, err)
		}
		// chunk is valid until the next step; feed copies what it keeps
		// and never modifies it.
		rows.feed(unsafe.String(unsafe.SliceData(chunk), len(chunk)))
	}
	n := rows.finish()
	if c.hasRange {
		if err := errViewRange(c.first, c.last, n); err != nil {
			return nil, err
		}
	}
	if err := events.FSObserved.Emit(ctx, e.s, events.Observation{Target: t, Kind: events.Present, Version: info.Version, Digest: digest, Actor: exec}); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Grow(128 + len(t.DisplayPath) + rows.out.b.Len() + len(clipNotice))
	b.WriteString("Here's the content of ")
	b.WriteString(fsapi.Display(t.DisplayPath))
	b.WriteString(" with line numbers (which has a total of ")
	b.WriteString(strconv.FormatInt(n, 10))
	b.WriteString(" lines)")
	if c.hasRange {
		b.WriteString(" with view_range=[" + formatPair(c.first, c.last) + "]")
	}
	b.WriteString(":\n")
	b.WriteString(rows.out.String())
	return result{Command: cmdView, Path: t.DisplayPath, text: b.String()}, nil
}

// readFailure records a file refused as not text as seen (editor.md §8.1
// step 3, [D14]) and returns err unchanged.
func (e *editor) readFailure(ctx context.Context, t fsapi.Target, info *fsapi.Info, exec *tools.Exec, err error) error {
	var fe *fsapi.Error
	if errors.As(err, &fe) && fe.Code == fsapi.CodeNotText {
		if oerr := events.FSObserved.Emit(ctx, e.s, events.Observation{Target: t, Kind: events.Present, Version: info.Version, Actor: exec}); oerr != nil {
			return oerr
		}
	}
	return err
}

// observeAbsent records that the session saw no file [D4]; the not-found
// error stays the result whatever the listeners say, so a failure is only
// logged.
func (e *editor) observeAbsent(ctx context.Context, t fsapi.Target, exec *tools.Exec) {
	if err := events.FSObserved.Emit(ctx, e.s, events.Observation{Target: t, Kind: events.Absent, Actor: exec}); err != nil {
		e.s.Logger().Warn("fs/observed listener failed after the editor found no file", "path", t.DisplayPath, "err", err)
	}
}
