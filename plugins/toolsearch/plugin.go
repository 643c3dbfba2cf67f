package toolsearch

import (
	"context"
	"encoding/json"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Plugin is the `toolsearch` plugin (search.md §1): it injects the `fs` and
// `tools` services, waits for both, and registers the tools glob and grep
// and their prompt sections tool:glob (order 103) and tool:grep (order
// 104); all of them go away when either service does.
var Plugin = host.Define[Config]("toolsearch", apply,
	host.Inject(fsapi.Key, tools.Key),
	host.Defaults(DefaultConfig))

func init() { host.Register(Plugin) }

// searcher is one activation: the fs service and the config.
type searcher struct {
	fs  fsapi.FileSystem
	cfg Config
}

func apply(_ context.Context, s *host.Scope, cfg Config) error {
	se := &searcher{fs: fsapi.Key.Must(s), cfg: cfg}
	reg := tools.Key.Must(s)
	for _, t := range se.tools() {
		if _, err := reg.Register(s, t); err != nil {
			return err
		}
	}
	for _, sec := range sections {
		if _, err := reg.AddSection(s, sec); err != nil {
			return err
		}
	}
	return nil
}

// tools returns glob and grep, in registration order. Both are read-only
// and parallel-safe (search.md §1).
func (se *searcher) tools() []tools.Tool {
	always := func(tools.Args) bool { return true }
	return []tools.Tool{
		{Name: "glob", Title: "Find files", Description: globDescription(se.cfg.GlobMaxResults), Parameters: globParametersJSON,
			Output: globOutputJSON, ReadOnly: true, Execute: se.glob, Render: textOf(renderGlob),
			Summary: summarizeGlob, SummarySchema: globSummarySchemaJSON, ConcurrencySafe: always},
		{Name: "grep", Title: "Search file contents", Description: grepDescription(se.cfg.GrepMaxMatches), Parameters: grepParametersJSON,
			Output: grepOutputJSON, ReadOnly: true, Execute: se.grep, Render: textOf(renderGrep),
			Summary: summarizeGrep, SummarySchema: grepSummarySchemaJSON, ConcurrencySafe: always},
	}
}

// textOf adapts a value renderer to the registry's one-text-block form.
func textOf[V any](render func(V) string) func(tools.Args, any) []tools.Block {
	return func(_ tools.Args, v any) []tools.Block { return []tools.Block{tools.TextBlock(render(v.(V)))} }
}

// The schemas as JSON values, converted once and statically, as in toolfs:
// no copies at each registration. Nothing may write to them.
var (
	globOutputJSON        = json.RawMessage(globOutput)
	globParametersJSON    = json.RawMessage(globParameters)
	globSummarySchemaJSON = json.RawMessage(globSummarySchema)
	grepOutputJSON        = json.RawMessage(grepOutput)
	grepParametersJSON    = json.RawMessage(grepParameters)
	grepSummarySchemaJSON = json.RawMessage(grepSummarySchema)
)
