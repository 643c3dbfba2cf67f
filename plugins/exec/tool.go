package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Sandboxless ends the description of every tool an exec plugin declares
// (plugin-protocol.md §3): the child runs with the server's privileges.
const Sandboxless = "(runs outside the workspace sandbox)"

// objectSchema is the parameters of a tool that declares no inputSchema.
var objectSchema = json.RawMessage(`{"type":"object"}`)

// tool returns the registry's form of a declared tool: its description
// ends with Sandboxless, its title is `title` (else annotations.title), its
// annotations become the read-only and destructive hints, and each call is
// a tools/call to the child.
func (e *entry) tool(d toolDecl) tools.Tool {
	params := d.InputSchema
	if len(params) == 0 || string(params) == "null" {
		params = objectSchema
	}
	desc := Sandboxless
	if d.Description != "" {
		desc = strings.TrimRight(d.Description, " \n") + " " + Sandboxless
	}
	t := tools.Tool{Name: d.Name, Title: d.Title, Description: desc, Parameters: params, Render: render, OpenWorld: true,
		Execute: func(ctx context.Context, args tools.Args, x *tools.Exec) (any, error) {
			return e.callTool(ctx, d.Name, args, x)
		}}
	if d.Annotations != nil {
		t.ReadOnly, t.Destructive = d.Annotations.ReadOnlyHint, d.Annotations.DestructiveHint
		if t.Title == "" {
			t.Title = d.Annotations.Title
		}
	}
	return t
}

// callTool sends one tools/call under the call's own context; a call that
// ends first sends the child `cancel`. A child that cannot answer gives
// `plugin "<id>" is unavailable: <cause>` (PLUGIN_UNAVAILABLE), whatever
// onFailure says.
func (e *entry) callTool(ctx context.Context, name string, args tools.Args, x *tools.Exec) (any, error) {
	p, down := e.current()
	if p == nil {
		return nil, &wire.Unavailable{Plugin: e.id, Cause: down}
	}
	raw, err := wire.Marshal(map[string]any(args))
	if err != nil {
		return nil, err
	}
	res, err := p.call(ctx, "tools/call", wire.ToolCall{Name: name, Arguments: raw, Actor: wire.ActorOf(x)})
	if err != nil {
		if ctx.Err() != nil {
			e.push(notification{method: "cancel", payload: x.Call()})
			return nil, ctx.Err()
		}
		return nil, &wire.Unavailable{Plugin: e.id, Cause: e.cause(ctx, err, "")}
	}
	r, err := wire.ParseToolResult(res)
	if err != nil {
		return nil, &wire.Unavailable{Plugin: e.id, Cause: err.Error()}
	}
	if r.IsError {
		msg := r.Text()
		if msg == "" {
			msg = fmt.Sprintf("tool %q of plugin %q failed", name, e.id)
		}
		if wire.ValidCode(r.Code) {
			return nil, &toolError{msg: msg, code: r.Code}
		}
		return nil, errors.New(msg)
	}
	return r, nil
}

// render turns a tool result into the registry's blocks.
func render(_ tools.Args, v any) []tools.Block {
	r := v.(wire.ToolResult)
	out := make([]tools.Block, len(r.Content))
	for i, c := range r.Content {
		out[i] = tools.TextBlock(c.Text)
	}
	return out
}

// toolError is a plugin tool's coded failure: {name: "PluginError", code}.
type toolError struct{ msg, code string }

func (t *toolError) Error() string     { return t.msg }
func (t *toolError) ErrorName() string { return wire.ErrorName }
func (t *toolError) ErrorCode() string { return t.code }
