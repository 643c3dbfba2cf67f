package toolfs

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

// readArgs are the validated arguments of a read.
type readArgs struct {
	path   string
	offset float64
	limit  int
}

// readArguments validates a read's arguments in contract order (§6.7.1).
func (ts *toolset) readArguments(args tools.Args) (readArgs, error) {
	path, _ := args.String("file_path")
	if blankString(path) {
		return readArgs{}, errors.New("file_path must be a non-empty string")
	}
	ra := readArgs{path: path, offset: 1, limit: ts.cfg.ReadLimit}
	if v, ok := args.Number("offset"); ok {
		if !positiveInteger(v) {
			return readArgs{}, errors.New("offset must be a positive integer")
		}
		ra.offset = v
	}
	if v, ok := args.Number("limit"); ok {
		if !positiveInteger(v) {
			return readArgs{}, errors.New("limit must be a positive integer")
		}
		if v > float64(ts.cfg.ReadLimit) {
			return readArgs{}, errors.New("limit must be less than or equal to " + strconv.Itoa(ts.cfg.ReadLimit))
		}
		ra.limit = int(v)
	}
	return ra, nil
}

// read runs the read tool (contract §6.7.2): exactly one Stat, then the
// text (streamed from readStreamMinSize bytes), the line window, and an
// fs/observed of the version stat saw before the content was read, with the
// digest of the content when the provider had it whole ([D24]). A file
// that is not text but is a PNG, JPEG, GIF or WebP image (by content) of
// at most readImageMaxBytes is returned as an image (imageValue) instead of
// the binary-file error, observed present the same way.
func (ts *toolset) read(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	ra, err := ts.readArguments(args)
	if err != nil {
		return nil, err
	}
	t, err := ts.resolveFile(ctx, ra.path, exec, "read")
	if err != nil {
		return nil, err
	}
	info, err := ts.fs.Stat(ctx, t)
	if err != nil {
		return nil, err
	}
	if info == nil {
		// [D4]: record that the session saw no file; the not-found error is
		// the result whatever the listeners say.
		if err := events.FSObserved.Emit(ctx, ts.s, events.Observation{Target: t, Kind: events.Absent, Actor: exec}); err != nil {
			ts.s.Logger().Warn("fs/observed listener failed after a read found no file", "path", t.DisplayPath, "err", err)
		}
		return nil, fsapi.ErrNotFound("read", t.DisplayPath, nil)
	}
	if info.Type != fsapi.TypeFile {
		return nil, fsapi.ErrNotRegularFile("read", t.DisplayPath)
	}
	var digest fsapi.Digest
	v, err := ts.readWindow(fsapi.WithDigestSink(ctx, func(d fsapi.Digest) { digest = d }), t, ra, info)
	if err != nil {
		if fe := (*fsapi.Error)(nil); errors.As(err, &fe) && fe.Code == fsapi.CodeNotText {
			if img, ok := ts.readImage(ctx, t, info); ok {
				// An image up to readImageMaxBytes is content the model
				// can see: a present observation, as a text read's.
				if err := events.FSObserved.Emit(ctx, ts.s, events.Observation{Target: t, Kind: events.Present, Version: info.Version, Actor: exec}); err != nil {
					return nil, err
				}
				return img, nil
			}
			// [D14]: the model has seen what the file is (binary, or not
			// UTF-8); a write may now replace it. The refusal is the
			// result whatever the listeners say.
			if oerr := events.FSObserved.Emit(ctx, ts.s, events.Observation{Target: t, Kind: events.Present, Version: info.Version, Actor: exec}); oerr != nil {
				ts.s.Logger().Warn("fs/observed listener failed after a read refused a non-text file", "path", t.DisplayPath, "err", oerr)
			}
		}
		return nil, err
	}
	if err := events.FSObserved.Emit(ctx, ts.s, events.Observation{Target: t, Kind: events.Present, Version: info.Version, Digest: digest, Actor: exec}); err != nil {
		return nil, err
	}
	return v, nil
}

// readWindow reads t's text (streamed from readStreamMinSize bytes) and
// cuts the line window of ra out of it (contract §6.7.2 steps 4–5). A
// streamed read stops reading when the byte cap trips: that window states
// no total, so the rest is not needed (§6.7.5a [D26]); a window that ends
// at its limit still counts the rest's lines.
func (ts *toolset) readWindow(ctx context.Context, t fsapi.Target, ra readArgs, info *fsapi.Info) (readValue, error) {
	spec := windowSpec{Offset: ra.offset, Limit: ra.limit, MaxLineLength: ts.cfg.ReadMaxLineLength, MaxBytes: ts.cfg.ReadMaxBytes,
		StableChunks: info.HasSize && info.Size < ts.cfg.ReadStreamMinSize}
	if info.HasSize {
		spec.SizeHint = info.Size
	}
	s := newLineScanner(spec)
	if !info.HasSize || info.Size >= ts.cfg.ReadStreamMinSize {
		chunks, err := fsapi.ScanBytes(ctx, ts.fs, t)
		if err != nil {
			return readValue{}, err
		}
		for c, err := range chunks {
			if err != nil {
				return readValue{}, err
			}
			// c is valid until the next step; the scanner copies what it
			// keeps and never modifies it.
			if s.Write(unsafe.String(unsafe.SliceData(c), len(c))); s.Tripped() {
				break
			}
		}
	} else {
		text, err := ts.fs.ReadText(ctx, t)
		if err != nil {
			return readValue{}, err
		}
		s.spec.ValidText = true // ReadText returns valid UTF-8 or fails (contract §3.5)
		s.reserveLines(strings.Count(text, "\n") + 1)
		s.Write(text)
	}
	return s.window(t.DisplayPath)
}

// renderRead renders with the call's limit, or readLimit without one
// (contract §6.7.5).
func (ts *toolset) renderRead(args tools.Args, v any) []tools.Block {
	if img, ok := v.(imageValue); ok {
		return renderImage(img)
	}
	return []tools.Block{tools.TextBlock(renderRead(v.(readValue), ts.readLimit(args)))}
}

// readLimit is the call's limit argument, or readLimit without one.
func (ts *toolset) readLimit(args tools.Args) int {
	if n, ok := args.Number("limit"); ok {
		return int(n)
	}
	return ts.cfg.ReadLimit
}
