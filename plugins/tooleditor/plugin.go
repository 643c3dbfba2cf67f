package tooleditor

import (
	"context"
	"encoding/json"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Plugin is the `tooleditor` plugin: it injects the `fs` and `tools`
// services, waits for both, and registers the tool str_replace_editor and
// the prompt section tool:str_replace_editor; both go away when either
// service does (editor.md §1).
var Plugin = host.Define[Config]("tooleditor", apply,
	host.Inject(fsapi.Key, tools.Key),
	host.Defaults(DefaultConfig))

func init() { host.Register(Plugin) }

// ToolName is the name the model calls the tool by.
const ToolName = "str_replace_editor"

// editor is one activation: the scope (to dispatch the fs events), the fs
// service and the config.
type editor struct {
	s   *host.Scope
	fs  fsapi.FileSystem
	cfg Config
}

func apply(_ context.Context, s *host.Scope, cfg Config) error {
	e := &editor{s: s, fs: fsapi.Key.Must(s), cfg: cfg}
	reg := tools.Key.Must(s)
	if _, err := reg.Register(s, e.tool()); err != nil {
		return err
	}
	_, err := reg.AddSection(s, section)
	return err
}

// tool describes str_replace_editor (editor.md §1, §4): destructive, not
// read-only; a view may run in parallel, every other call is exclusive.
func (e *editor) tool() tools.Tool {
	return tools.Tool{
		Name: ToolName, Title: "Text editor", Description: e.cfg.Description, Parameters: parametersJSON,
		Output: outputJSON, Destructive: true, Execute: e.execute,
		Render: func(_ tools.Args, v any) []tools.Block { return []tools.Block{tools.TextBlock(v.(result).text)} },
		// The value's JSON form is the summary {command, path} (editor.md
		// §4.4, contract §5.4a).
		Summary: func(_ tools.Args, v any) any { return v }, SummarySchema: outputJSON,
		Meta: resultMeta,
		ConcurrencySafe: func(args tools.Args) bool {
			cmd, _ := args.String("command")
			return cmd == cmdView
		},
	}
}

// result is the value of a successful call. Its JSON form is the summary
// `{command, path}` (editor.md §4.4), path being the display path; text is
// the one text block the model sees; before and after are the LF views of a
// str_replace or insert, kept for the diff meta.
type result struct {
	Command string `json:"command"`
	Path    string `json:"path"`
	text    string
	before  *string
	after   string
	omitted bool // the provider left out the texts (past the diff basis)
}

// CheckOutput implements tools.OutputChecker: the command is one of the
// four.
func (r result) CheckOutput() error {
	if _, ok := commands[r.Command]; !ok {
		return errUnknownCommand(r.Command)
	}
	return nil
}

// execute validates the arguments (editor.md §5) and runs the command.
func (e *editor) execute(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	c, err := e.parse(args)
	if err != nil {
		return nil, err
	}
	switch c.command {
	case cmdView:
		return e.view(ctx, c, exec)
	case cmdCreate:
		return e.create(ctx, c, exec)
	case cmdStrReplace:
		return e.strReplace(ctx, c, exec)
	default:
		return e.insert(ctx, c, exec)
	}
}

var _ tools.OutputChecker = result{}

// The schemas as JSON values, converted once and statically, as in toolfs:
// no copies at each registration. Nothing may write to them.
var (
	outputJSON     = json.RawMessage(output)
	parametersJSON = json.RawMessage(parameters)
)
