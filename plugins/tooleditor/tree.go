package tooleditor

import (
	"context"
	"slices"
	"strings"

	"github.com/dsh-go/dsh/internal/quote"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// tree renders the view of the directory t (editor.md §8.4): the header,
// then the listing two levels deep (t's children, and the children of
// each child directory), clipped, then one more LF. Failing to list t fails
// the call; a child directory that cannot be listed is shown without
// children.
func (e *editor) tree(ctx context.Context, t fsapi.Target) (string, error) {
	children, err := e.fs.ListDir(ctx, t)
	if err != nil {
		return "", err
	}
	out := clipper{max: e.cfg.MaxOutputChars}
	row := func(kind string, display string) {
		out.write(kind)
		out.write("\t")
		out.write(quote.Name(display))
		out.write("\n")
	}
	row("d", t.DisplayPath)
	for _, c := range shown(children) {
		row(typeLetter(c.Type), c.Target.DisplayPath)
		if c.Type != fsapi.TypeDirectory || out.full() {
			continue
		}
		grand, err := e.fs.ListDir(ctx, c.Target)
		if err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			continue
		}
		for _, g := range shown(grand) {
			row(typeLetter(g.Type), g.Target.DisplayPath)
		}
	}
	return "Here're the files and directories up to 2 levels deep in " + fsapi.Display(t.DisplayPath) +
		", excluding hidden items, node_modules, and Python cache directories:\n" + out.String() + "\n", nil
}

// shown returns the entries a directory view shows, in byte order of their
// names: hidden names (a leading `.`) and exactly `node_modules` and
// `__pycache__` are left out.
func shown(entries []fsapi.DirEntry) []fsapi.DirEntry {
	out := make([]fsapi.DirEntry, 0, len(entries))
	for _, c := range entries {
		if strings.HasPrefix(c.Name, ".") || c.Name == "node_modules" || c.Name == "__pycache__" {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b fsapi.DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// typeLetter is a row's type: `d` for a directory, `f` for a file, `?` for
// anything else (editor.md §8.4).
func typeLetter(t fsapi.EntryType) string {
	switch t {
	case fsapi.TypeDirectory:
		return "d"
	case fsapi.TypeFile:
		return "f"
	}
	return "?"
}
