package toolfs

import (
	"context"
	"errors"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// list runs the list tool (contract §6.6): validation, resolve, the
// listing (the provider's cheap EntryLister when it has one, [D21], else
// ListDir), then the page. It makes no stat call and emits no fs/observed.
func (ts *toolset) list(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	path := "."
	if args.Has("path") {
		p, _ := args.String("path")
		if blankString(p) {
			return nil, errors.New("path must be a non-empty string when given")
		}
		path = p
	}
	offset := 1.0
	if v, ok := args.Number("offset"); ok {
		if !positiveInteger(v) {
			return nil, errors.New("offset must be a positive integer")
		}
		offset = v
	}
	t, err := ts.resolve(ctx, path, exec)
	if err != nil {
		return nil, err
	}
	// The text and the summary need names and types only: the cheap
	// listing (contract §3.6 [D21]), sorted once, by newListPage.
	children, err := fsapi.ListEntries(ctx, ts.fs, t, fsapi.ListOptions{})
	if err != nil {
		return nil, err
	}
	return newListPage(t.DisplayPath, children, offset, ts.cfg.ListMaxEntries)
}

func renderListValue(v any) string { return renderList(v.(listPage)) }
