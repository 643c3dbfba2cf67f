package toolfs

import (
	"context"
	"encoding/json"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Plugin is the `toolfs` plugin: it injects the `fs` and `tools` services,
// waits for both, and registers the tools list, read, write and edit and
// their four prompt sections; all of them go away when either service does
// (contract §1).
var Plugin = host.Define[Config]("toolfs", apply,
	host.Inject(fsapi.Key, tools.Key),
	host.Defaults(DefaultConfig))

func init() { host.Register(Plugin) }

// toolset is one activation: the scope (to dispatch the fs events), the fs
// service and the config.
type toolset struct {
	s   *host.Scope
	fs  fsapi.FileSystem
	cfg Config
}

func apply(_ context.Context, s *host.Scope, cfg Config) error {
	fs, reg := fsapi.Key.Must(s), tools.Key.Must(s)
	registered, err := (&toolset{s: s, fs: fs, cfg: cfg}).register(reg)
	if err != nil {
		return err
	}
	for _, sec := range sections {
		if _, err := reg.AddSection(s, sec); err != nil {
			return err
		}
	}
	// A change of limits is taken in place (host.OnUpdate): the four tools
	// are registered again with the new limits and descriptions, so the
	// activation, and every session's state kept by other plugins, stays;
	// calls in flight finish with the old limits.
	return host.OnUpdate(s, func(ctx context.Context, cfg Config) error {
		for _, d := range registered {
			if err := d(ctx); err != nil {
				return err
			}
		}
		registered, err = (&toolset{s: s, fs: fs, cfg: cfg}).register(reg)
		return err
	})
}

// register adds the four tools to reg, and multi_edit when the config asks
// for it, and returns their disposers.
func (ts *toolset) register(reg *tools.Registry) ([]host.Disposer, error) {
	var out []host.Disposer
	list := ts.tools()
	if t, ok := ts.multiEditTool(); ok && ts.cfg.MultiEdit {
		list = append(list, t)
	}
	for _, t := range list {
		d, err := reg.Register(ts.s, t)
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

// tools returns the four tools in registration order (contract §5.6), and
// read_many after them when the config opts in.
func (ts *toolset) tools() []tools.Tool {
	always := func(tools.Args) bool { return true }
	list := []tools.Tool{
		{Name: "list", Title: "List directory", Description: listDescription(ts.cfg.ListMaxEntries), Parameters: listParametersJSON,
			Output: listOutputJSON, ReadOnly: true, Execute: ts.list, Render: textOf(renderListValue),
			Summary: summarizeList, SummarySchema: listSummarySchemaJSON, ConcurrencySafe: always},
		{Name: "read", Title: "Read file", Description: readDescription, Parameters: readParameters(ts.cfg.ReadLimit),
			Output: readOutputJSON, ReadOnly: true, Execute: ts.read, Render: ts.renderRead,
			Summary: ts.summarizeRead, SummarySchema: readSummarySchemaJSON, ConcurrencySafe: always},
		{Name: "write", Title: "Write file", Description: writeDescription, Parameters: writeParametersJSON,
			Output: writeOutputJSON, Destructive: true, ExtraKeys: escalationKeys, Execute: ts.write, Render: textOf(renderWriteValue),
			Summary: summarizeWrite, SummarySchema: writeSummarySchemaJSON, Meta: ts.writeMeta},
		{Name: "edit", Title: "Edit file", Description: editDescription, Parameters: editParametersJSON,
			Output: editOutputJSON, Destructive: true, ExtraKeys: escalationKeys, Execute: ts.edit, Render: renderEditResult,
			Summary: summarizeEdit, SummarySchema: editSummarySchemaJSON, Meta: ts.editMeta},
	}
	if ts.cfg.ReadMany {
		list = append(list, tools.Tool{Name: "read_many", Title: "Read files", Description: readManyDescription(ts.cfg.ReadManyMaxFiles, ts.cfg.ReadMaxBytes),
			Parameters: readManyParameters(ts.cfg.ReadManyMaxFiles), ReadOnly: true, Execute: ts.readMany, Render: ts.renderReadMany, ConcurrencySafe: always})
	}
	return list
}

// textOf adapts a value renderer to the registry's one-text-block form.
func textOf(render func(value any) string) func(tools.Args, any) []tools.Block {
	return func(_ tools.Args, v any) []tools.Block { return []tools.Block{tools.TextBlock(render(v))} }
}

// The schemas as JSON values, converted once, statically: a conversion in
// tools() copied each one at every registration, and the copies, all of
// different sizes, each took a fresh heap span, which a one-shot `dshhost
// call` paid for in page faults. They are shared by every registration:
// nothing may write to them.
var (
	editOutputJSON         = json.RawMessage(editOutput)
	editParametersJSON     = json.RawMessage(editParameters)
	editSummarySchemaJSON  = json.RawMessage(editSummarySchema)
	listOutputJSON         = json.RawMessage(listOutput)
	listParametersJSON     = json.RawMessage(listParameters)
	listSummarySchemaJSON  = json.RawMessage(listSummarySchema)
	readOutputJSON         = json.RawMessage(readOutput)
	readSummarySchemaJSON  = json.RawMessage(readSummarySchema)
	writeOutputJSON        = json.RawMessage(writeOutput)
	writeParametersJSON    = json.RawMessage(writeParameters)
	writeSummarySchemaJSON = json.RawMessage(writeSummarySchema)
)
