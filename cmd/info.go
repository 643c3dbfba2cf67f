package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"text/tabwriter"

	"github.com/dsh-go/dsh/events/wire"
)

// listTools prints the tools' schemas as a JSON array: name, description,
// parameters and outputSchema, byte for byte as MCP clients get them
// (tools.Tool.InputSchema, tools.Tool.OutputSchema), and the annotations.
func listTools(ctx context.Context, env Env, c *common, _ []string) int {
	rt, code := start(ctx, env, c, slog.LevelWarn)
	if rt == nil {
		return code
	}
	defer rt.close()
	type toolJSON struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		Parameters   json.RawMessage `json:"parameters"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
		ReadOnly     bool            `json:"readOnly"`
		Destructive  bool            `json:"destructive"`
	}
	out := []toolJSON{}
	for _, t := range rt.reg.Tools() {
		out = append(out, toolJSON{t.Name, t.Description, t.InputSchema(), t.OutputSchema(), t.ReadOnly, t.Destructive})
	}
	return printJSON(env, out)
}

// printPrompt prints the assembled prompt sections.
func printPrompt(ctx context.Context, env Env, c *common, _ []string) int {
	rt, code := start(ctx, env, c, slog.LevelWarn)
	if rt == nil {
		return code
	}
	defer rt.close()
	fmt.Fprintln(env.Stdout, rt.reg.Prompt())
	return 0
}

// listPlugins prints every plugin instance: a table, or JSON with --json.
// It reports the state the boot reached; a failed boot still prints it (with
// each FAILED instance's error) and exits 2.
func listPlugins(ctx context.Context, env Env, c *common, _ []string) int {
	log, dep, ok := c.load(env, slog.LevelWarn)
	if !ok {
		return 2
	}
	rt, bootErr := boot(ctx, dep, log)
	if rt == nil {
		fmt.Fprintln(env.Stderr, program+":", bootErr)
		return 2
	}
	defer rt.close()
	type pluginJSON struct {
		ID       string   `json:"id"`
		Name     string   `json:"name"`
		State    string   `json:"state"`
		Provides []string `json:"provides"`
		Injects  []string `json:"injects"`
		// Process and Dropped are a wire carrier entry's (exec): its
		// process state and the notifications its queue dropped.
		Process string  `json:"process,omitempty"`
		Dropped *uint64 `json:"dropped,omitempty"`
		Error   string  `json:"error,omitempty"`
	}
	var out []pluginJSON
	carriers := wire.States(rt.host)
	for _, x := range rt.host.Snapshot() {
		p := pluginJSON{ID: x.ID, Name: x.Plugin, State: x.State.String(), Provides: nonNil(x.Provides), Injects: nonNil(x.Injects)}
		if st, ok := carriers[x.ID]; ok {
			p.Process, p.Dropped = st.Process, &st.Dropped
		}
		if x.Err != nil {
			p.Error = x.Err.Error()
		}
		out = append(out, p)
	}
	code := 0
	if c.json {
		code = printJSON(env, nonNilList(out))
	} else {
		// The PROCESS and DROPPED columns appear when the deployment has
		// carrier entries (exec).
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		if len(carriers) == 0 {
			fmt.Fprintln(tw, "ID\tNAME\tSTATE\tPROVIDES\tINJECTS\tERROR")
		} else {
			fmt.Fprintln(tw, "ID\tNAME\tSTATE\tPROVIDES\tINJECTS\tPROCESS\tDROPPED\tERROR")
		}
		for _, p := range out {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t", p.ID, p.Name, p.State, dash(p.Provides), dash(p.Injects))
			if len(carriers) > 0 {
				process, dropped := "-", "-"
				if p.Dropped != nil {
					process, dropped = p.Process, fmt.Sprint(*p.Dropped)
				}
				fmt.Fprintf(tw, "%s\t%s\t", process, dropped)
			}
			fmt.Fprintf(tw, "%s\n", p.Error)
		}
		tw.Flush()
	}
	if bootErr != nil {
		fmt.Fprintln(env.Stderr, program+":", bootErr)
		return 2
	}
	return code
}

// printConfig prints the effective deployment as JSON that is itself a
// valid deployment file: every layer applied, each config with its defaults
// filled in, except the keys the workspace fills (fslocal's cwd and root),
// which stay empty so the output still follows --workspace when reused.
func printConfig(_ context.Context, env Env, c *common, _ []string) int {
	_, dep, ok := c.load(env, slog.LevelWarn) // a bad log level fails here too
	if !ok {
		return 2
	}
	type entryJSON struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Disabled bool   `json:"disabled"`
		Config   any    `json:"config"`
	}
	out := struct {
		Workspace string      `json:"workspace"`
		Watch     bool        `json:"watch,omitempty"`
		Plugins   []entryJSON `json:"plugins"`
	}{Workspace: dep.Workspace, Watch: dep.Watch, Plugins: []entryJSON{}}
	for _, e := range dep.Entries {
		out.Plugins = append(out.Plugins, entryJSON{e.ID, e.Name, e.Disabled, e.Declared})
	}
	return printJSON(env, out)
}

func printJSON(env Env, v any) int {
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(env.Stderr, program+":", err)
		return 2
	}
	return 0
}

func nonNilList[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func dash(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}
