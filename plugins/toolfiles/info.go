package toolfiles

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// fileInfo runs the file_info tool: the path named without following a
// final link (absent: FS_NOT_FOUND `cannot stat "<p>": not found`), then
// its lines, in this order:
//
//	path: <p>
//	type: file | directory | symlink | other
//	links to: file | directory | other | nothing (dangling)
//	size: <n> bytes
//	mode: <octal permission bits, e.g. 0644>
//	modified: <RFC 3339 UTC, seconds>
//	lines: <n> | not counted (not UTF-8 text) | not counted (larger than <max> bytes)
//
// `links to` only for a symlink, `lines` only for a file. It reads a file
// only to count its lines, observes nothing (file_info is not a read) and
// says nothing of what the policy would allow.
func (ts *toolset) fileInfo(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	path, _ := args.String("path")
	if fsapi.IsBlank(path) {
		return nil, errors.New("path must be a non-empty string")
	}
	t, info, err := ts.resolveEntry(ctx, path, exec, "")
	if err != nil {
		return nil, err
	}
	if info == nil {
		return nil, fsapi.ErrNotFound("stat", t.DisplayPath, nil)
	}
	var b strings.Builder
	b.WriteString("path: " + fsapi.Display(t.DisplayPath) + "\ntype: " + string(info.Type) + "\n")
	if info.Type == fsapi.TypeSymlink {
		to := "nothing (dangling)"
		if ft, err := ts.fs.Resolve(ctx, path, fsapi.CwdOptions(path, exec.Cwd())); err == nil {
			if fi, err := ts.fs.Stat(ctx, ft); err == nil && fi != nil {
				to = string(fi.Type)
			}
		}
		b.WriteString("links to: " + to + "\n")
	}
	fmt.Fprintf(&b, "size: %d bytes\nmode: %04o\nmodified: %s", info.Size, uint32(info.Mode.Perm()), info.ModTime.UTC().Format(time.RFC3339))
	if info.Type == fsapi.TypeFile {
		b.WriteString("\nlines: " + ts.lines(ctx, t, info.Size))
	}
	return b.String(), nil
}

// lines counts t's lines as read numbers them (a final line without a
// newline counts; an empty file has 0), or says why it did not.
func (ts *toolset) lines(ctx context.Context, t fsapi.Target, size int64) string {
	if size > ts.cfg.LineCountMaxSize {
		return "not counted (larger than " + strconv.FormatInt(ts.cfg.LineCountMaxSize, 10) + " bytes)"
	}
	chunks, err := fsapi.ScanBytes(ctx, ts.fs, t)
	if err != nil {
		return notCounted(err)
	}
	n, last := 0, byte('\n')
	for c, err := range chunks {
		if err != nil {
			return notCounted(err)
		}
		for _, x := range c {
			if x == '\n' {
				n++
			}
		}
		if len(c) > 0 {
			last = c[len(c)-1]
		}
	}
	if last != '\n' {
		n++
	}
	return strconv.Itoa(n)
}

// notCounted words a failed count: text that is not UTF-8, or the error.
func notCounted(err error) string {
	var fe *fsapi.Error
	if errors.As(err, &fe) && fe.Code == fsapi.CodeNotText {
		return "not counted (not UTF-8 text)"
	}
	return "not counted (" + err.Error() + ")"
}
