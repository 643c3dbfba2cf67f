package tooleditor

import (
	"github.com/dsh-go/dsh/internal/linediff"
	"github.com/dsh-go/dsh/plugins/tools"
)

// The bounds of a mutation's diff meta (editor.md §4.4, contract §5.4a),
// toolfs's defaults: no diff is computed when the text before or after
// exceeds diffBasisMaxBytes, and none is sent when its total text exceeds
// diffMaxBytes.
const (
	diffMaxBytes      = 65536
	diffBasisMaxBytes = 10485760
)

// omittedMeta is the meta of a mutation whose diff is over a bound.
type omittedMeta struct {
	DiffsOmitted bool `json:"diffsOmitted"`
}

// resultMeta is the meta of a top-level call (editor.md §4.4): none for a
// view; `{diffs: []}` for a create; for str_replace and insert the diffs of
// contract §6.10 over the raw path argument, or `{diffsOmitted: true}` past
// the bounds above.
func resultMeta(args tools.Args, v any) any {
	r := v.(result)
	if r.Command == cmdView {
		return nil
	}
	path, _ := args.String("path")
	if r.before != nil && (len(*r.before) > diffBasisMaxBytes || len(r.after) > diffBasisMaxBytes) {
		return omittedMeta{DiffsOmitted: true}
	}
	m := linediff.NewMeta(path, r.before, r.after)
	total := 0
	for _, h := range m.Diffs {
		total += len(h.NewText)
		if h.OldText != nil {
			total += len(*h.OldText)
		}
	}
	if total > diffMaxBytes {
		return omittedMeta{DiffsOmitted: true}
	}
	return m
}
