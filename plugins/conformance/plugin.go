//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Plugin is the `conformance` plugin: it injects the `tools` service and
// registers the fixture tools, which go away with it.
var Plugin = host.Define[struct{}]("conformance", apply, host.Inject(tools.Key))

func init() { host.Register(Plugin) }

// fixtures is one activation: the registry and the scope its tools live in,
// and the transient tool test_trigger_tool_change replaces.
type fixtures struct {
	s   *host.Scope
	reg *tools.Registry

	mu        sync.Mutex
	transient host.Disposer
}

func apply(_ context.Context, s *host.Scope, _ struct{}) error {
	f := &fixtures{s: s, reg: tools.Key.Must(s)}
	for _, t := range f.tools() {
		if _, err := f.reg.Register(s, t); err != nil {
			return err
		}
	}
	return nil
}

// noArgs is the parameters schema of a fixture that takes none.
const noArgs = `{"type":"object","properties":{}}`

// blocks renders a fixture's value, its content blocks.
func blocks(_ tools.Args, v any) []tools.Block { return v.([]tools.Block) }

// text is a result of one text block.
func text(format string, a ...any) []tools.Block {
	return []tools.Block{tools.TextBlock(fmt.Sprintf(format, a...))}
}

// fixture is a fixture tool: read-only, its value its content blocks.
func fixture(name, title, description, params string, run func(ctx context.Context, args tools.Args, exec *tools.Exec) ([]tools.Block, error)) tools.Tool {
	return tools.Tool{Name: name, Title: title, Description: description, Parameters: json.RawMessage(params), ReadOnly: true,
		Execute: func(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
			b, err := run(ctx, args, exec)
			if err != nil {
				return nil, err
			}
			return b, nil
		},
		Render: blocks}
}

// tools lists the fixtures: content, progress, logging and errors here,
// input requests in input.go.
func (f *fixtures) tools() []tools.Tool {
	list := []tools.Tool{
		fixture("test_simple_text", "Simple text", "Returns one text block.", noArgs,
			func(context.Context, tools.Args, *tools.Exec) ([]tools.Block, error) {
				return text("This is a simple text response for testing."), nil
			}),
		fixture("test_image_content", "Image content", "Returns one image block (PNG).", noArgs,
			func(context.Context, tools.Args, *tools.Exec) ([]tools.Block, error) {
				return []tools.Block{tools.ImageBlock("image/png", pngImage)}, nil
			}),
		fixture("test_audio_content", "Audio content", "Returns one audio block (WAV).", noArgs,
			func(context.Context, tools.Args, *tools.Exec) ([]tools.Block, error) {
				return []tools.Block{tools.AudioBlock("audio/wav", wavAudio)}, nil
			}),
		fixture("test_embedded_resource", "Embedded resource", "Returns one embedded text resource.", noArgs,
			func(context.Context, tools.Args, *tools.Exec) ([]tools.Block, error) {
				return []tools.Block{tools.ResourceBlock("test://embedded-resource", "text/plain", "This is an embedded resource", nil)}, nil
			}),
		fixture("test_multiple_content_types", "Mixed content", "Returns a text, an image and an embedded resource block.", noArgs,
			func(context.Context, tools.Args, *tools.Exec) ([]tools.Block, error) {
				return []tools.Block{
					tools.TextBlock("This is text content"),
					tools.ImageBlock("image/png", pngImage),
					tools.ResourceBlock("test://embedded-in-multiple", "text/plain", "This is an embedded resource", nil),
				}, nil
			}),
		fixture("test_tool_with_logging", "Logging", "Logs three info messages, 50 ms apart.", noArgs,
			func(ctx context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				for i, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
					if i > 0 {
						pause(ctx, 50*time.Millisecond)
					}
					exec.Notify("info", m)
				}
				return text("Tool with logging executed successfully"), nil
			}),
		fixture("test_tool_with_progress", "Progress", "Reports progress 0, 50 and 100 of 100, 50 ms apart.", noArgs,
			func(ctx context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				for _, done := range []float64{0, 50, 100} {
					if exec.Report != nil { // unthrottled: the suite counts every report
						exec.Report(done, 100, fmt.Sprintf("Completed step %.0f of 100", done))
					}
					pause(ctx, 50*time.Millisecond)
				}
				return text("Progress reported"), nil
			}),
		fixture("test_error_handling", "Error", "Fails as a tool error (isError).", noArgs,
			func(context.Context, tools.Args, *tools.Exec) ([]tools.Block, error) {
				return nil, fmt.Errorf("this tool intentionally returns an error for testing")
			}),
		fixture("json_schema_2020_12_tool", "JSON Schema 2020-12", "Takes arguments described by a JSON Schema 2020-12 document.", jsonSchema202012,
			func(_ context.Context, args tools.Args, _ *tools.Exec) ([]tools.Block, error) {
				b, _ := json.Marshal(args)
				return text("JSON Schema 2020-12 tool called with: %s", b), nil
			}),
		fixture("test_x_mcp_header", "Header parameter", "Mirrors its region argument into the Mcp-Param-Region header (SEP-2243).", xMCPHeader,
			func(_ context.Context, args tools.Args, _ *tools.Exec) ([]tools.Block, error) {
				region, _ := args.String("region")
				return text("region=%s", region), nil
			}),
		fixture("test_missing_capability", "Missing capability", "Needs the client's sampling capability: without it, the request fails -32021.", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				if declared(exec, "sampling") {
					return text("Client declared the sampling capability; tool executed."), nil
				}
				return nil, &tools.ProtocolError{Code: -32021, Message: "sampling capability required but not declared by client",
					Data: map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}}
			}),
		fixture("test_streaming_elicitation", "Response stream", "Answers with a plain result: its response stream carries no request.", noArgs,
			func(context.Context, tools.Args, *tools.Exec) ([]tools.Block, error) {
				return text("stream observed: result frames only, no top-level requests"), nil
			}),
		fixture("test_logging_tool", "Log message", "Logs one info message, which only a client that asked for a level gets.", noArgs,
			func(_ context.Context, _ tools.Args, exec *tools.Exec) ([]tools.Block, error) {
				exec.Notify("info", "test_logging_tool executed")
				return text("Log attempted; the server sends it only at a level the request asked for."), nil
			}),
		fixture("test_trigger_tool_change", "Change the tool list", "Registers a transient tool again, which changes the tool list.", noArgs,
			func(context.Context, tools.Args, *tools.Exec) ([]tools.Block, error) {
				if err := f.replaceTransient(); err != nil {
					return nil, err
				}
				return text("tools_list_changed published"), nil
			}),
	}
	return append(list, f.inputTools()...)
}

// replaceTransient registers the transient tool anew (removing the one
// before), so that every call changes the tool list.
func (f *fixtures) replaceTransient() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.transient != nil {
		_ = f.transient(context.Background())
		f.transient = nil
	}
	d, err := f.reg.Register(f.s, fixture("__transient_tool_for_list_changed", "Transient", "Exists to change the tool list.", noArgs,
		func(context.Context, tools.Args, *tools.Exec) ([]tools.Block, error) { return text("transient"), nil }))
	f.transient = d
	return err
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// declared reports whether the call's client declared capability.
func declared(exec *tools.Exec, capability string) bool {
	var caps map[string]json.RawMessage
	if json.Unmarshal(exec.Capabilities, &caps) != nil {
		return false
	}
	v, ok := caps[capability]
	return ok && string(v) != "null"
}

// jsonSchema202012 uses the 2020-12 vocabulary the suite checks survives
// tools/list verbatim: $schema, $defs, $anchor, $ref, allOf/anyOf,
// if/then/else, additionalProperties.
const jsonSchema202012 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},` +
	`"additionalProperties":false}`

// xMCPHeader annotates region as mirrored into a header (SEP-2243).
const xMCPHeader = `{"type":"object","properties":{"region":{"type":"string","description":"mirrored into Mcp-Param-Region","x-mcp-header":"Region"},"level":{"type":"integer","description":"not mirrored"}}}`
