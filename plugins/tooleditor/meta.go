package tooleditor

import (
	"github.com/dsh-go/dsh/internal/linediff"
	"github.com/dsh-go/dsh/plugins/tools"
)

// resultMeta is the meta of a top-level call (editor.md §4.4): none for a
// view; `{diffs: []}` for a create; for str_replace and insert the diffs of
// contract §6.10 over the raw path argument, bounded by toolfs's default
// bounds (contract §5.4a: `{diffsOmitted: true}` past them).
func resultMeta(args tools.Args, v any) any {
	r := v.(result)
	if r.Command == cmdView {
		return nil
	}
	path, _ := args.String("path")
	return linediff.BoundedMeta(path, r.before, r.after, r.omitted, linediff.DefaultBounds)
}
