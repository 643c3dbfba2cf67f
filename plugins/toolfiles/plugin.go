package toolfiles

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Plugin is the `toolfiles` plugin: it injects the `fs` and `tools`
// services, waits for both, and registers move, delete, mkdir and
// file_info (each when switched on and when the provider can) with their
// prompt sections; all go away when either service does.
var Plugin = host.Define[Config]("toolfiles", apply,
	host.Inject(fsapi.Key, tools.Key),
	host.Defaults(DefaultConfig))

func init() { host.Register(Plugin) }

// toolset is one activation: the scope (to dispatch the fs events), the fs
// service with its entry capability, and the config.
type toolset struct {
	s       *host.Scope
	fs      fsapi.FileSystem
	entries fsapi.EntryResolver
	cfg     Config
}

func apply(_ context.Context, s *host.Scope, cfg Config) error {
	fs, reg := fsapi.Key.Must(s), tools.Key.Must(s)
	entries, ok := fs.(fsapi.EntryResolver)
	if !ok {
		return nil // a provider that cannot name entries: no tool here
	}
	ts := &toolset{s: s, fs: fs, entries: entries, cfg: cfg}
	for _, t := range ts.tools() {
		if _, err := reg.Register(s, t.tool); err != nil {
			return err
		}
		if _, err := reg.AddSection(s, t.section); err != nil {
			return err
		}
	}
	return nil
}

// entry is one tool with its prompt section.
type entry struct {
	tool    tools.Tool
	section tools.Section
}

// tools returns the tools that are switched on and that the provider can
// run, in the order move, delete, mkdir, file_info.
func (ts *toolset) tools() []entry {
	var out []entry
	if _, ok := ts.fs.(fsapi.Mover); ok && ts.cfg.Move {
		out = append(out, entry{tools.Tool{Name: "move", Title: "Move or rename", Description: moveDescription,
			Parameters: json.RawMessage(moveParameters), Destructive: true, Execute: ts.move, Render: text},
			tools.Section{Name: "tool:move", Order: 106, Text: moveSection}})
	}
	if _, ok := ts.fs.(fsapi.Remover); ok && ts.cfg.Delete {
		out = append(out, entry{tools.Tool{Name: "delete", Title: "Delete", Description: deleteDescription,
			Parameters: json.RawMessage(deleteParameters), Destructive: true, Execute: ts.delete, Render: text},
			tools.Section{Name: "tool:delete", Order: 107, Text: deleteSection}})
	}
	if _, ok := ts.fs.(fsapi.DirMaker); ok && ts.cfg.Mkdir {
		out = append(out, entry{tools.Tool{Name: "mkdir", Title: "Make directory", Description: mkdirDescription,
			Parameters: json.RawMessage(mkdirParameters), Execute: ts.mkdir, Render: text},
			tools.Section{Name: "tool:mkdir", Order: 108, Text: mkdirSection}})
	}
	if ts.cfg.FileInfo {
		always := func(tools.Args) bool { return true }
		out = append(out, entry{tools.Tool{Name: "file_info", Title: "File info", Description: fileInfoDescription,
			Parameters: json.RawMessage(fileInfoParameters), ReadOnly: true, Execute: ts.fileInfo, Render: text, ConcurrencySafe: always},
			tools.Section{Name: "tool:file_info", Order: 109, Text: fileInfoSection}})
	}
	return out
}

// text renders a tool's value, its one line of text.
func text(_ tools.Args, v any) []tools.Block { return []tools.Block{tools.TextBlock(v.(string))} }

// resolveEntry names path for the call's conversation without following a
// final symlink (contract §6.4, fsapi.CwdOptions), then asks the provider's
// refusal of op on a protected file (fsapi.Refuse, FS_PROTECTED) before any
// intent runs, as fsapi.ResolveFile does for the file tools.
func (ts *toolset) resolveEntry(ctx context.Context, path string, exec *tools.Exec, op string) (fsapi.Target, *fsapi.PathInfo, error) {
	t, info, err := ts.entries.ResolveEntry(ctx, path, fsapi.CwdOptions(path, exec.Cwd()))
	if err != nil {
		return fsapi.Target{}, nil, err
	}
	if op != "" {
		if err := fsapi.Refuse(ctx, ts.fs, t, op); err != nil {
			return fsapi.Target{}, nil, err
		}
	}
	return t, info, nil
}

// finalSlash refuses a path that ends in "/" but names an entry that is
// not a directory (contract §6.4a [D23]): FS_INVALID_PATH `cannot <op>
// "<p>/": a file path must not end with "/"`.
func finalSlash(path string, t fsapi.Target, info *fsapi.PathInfo, op string) error {
	if strings.HasSuffix(path, "/") && info != nil && info.Type != fsapi.TypeDirectory {
		return fsapi.ErrFinalSlash(op, t.DisplayPath)
	}
	return nil
}
