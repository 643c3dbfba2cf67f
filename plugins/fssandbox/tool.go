package fssandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// ToolName is the name of the mode-switching tool (sandbox.md §4.2).
const ToolName = "sandbox_mode"

// toolDescription and toolParameters are sent to the model byte for byte
// (sandbox.md §4.2 "Schema").
const (
	toolDescription = "Show or change the file sandbox mode of this session. Modes from narrowest to widest: read-only (no file changes), workspace-write (changes only under the writable roots), full-access (no sandbox limit). Without mode, it reports the current mode. A narrower mode applies at once; a wider mode needs a justification and the user's approval."
	toolParameters  = `{"type":"object","properties":{"mode":{"type":"string","enum":["read-only","workspace-write","full-access"],"description":"Mode to switch to. Omit it to report the current mode."},"justification":{"type":"string","description":"Required for a wider mode: one sentence, shown to the user, on why this session needs it."}}}`
	toolOutput      = `{"type":"object","properties":{"mode":{"type":"string","enum":["read-only","workspace-write","full-access"]},"previous":{"type":"string","enum":["read-only","workspace-write","full-access"]}},"required":["mode","previous"],"additionalProperties":false}`
)

// Section is the prompt section of sandbox_mode (sandbox.md §4.2), order
// 110.
var Section = tools.Section{
	Name:  "tool:" + ToolName,
	Order: 110,
	Text:  "File writes and edits run under this session's sandbox mode: read-only, workspace-write or full-access. When the sandbox refuses a write or edit, its error names the mode that would allow it; if the change is needed, call sandbox_mode with that mode and a one-sentence justification, which the user must approve, and retry only after the switch succeeds. Ask for no more access than the task needs, and use sandbox_mode to return to a narrower mode when you are done.",
}

// ModeValue is the structured value of sandbox_mode (sandbox.md §4.2): the
// conversation's mode after the call and its mode before (equal for a report or
// no change).
type ModeValue struct {
	Mode     Mode `json:"mode"`
	Previous Mode `json:"previous"`
}

// register adds sandbox_mode and its section to the registry on sub.
func (b *sandbox) register(_ context.Context, sub *host.Scope) error {
	reg := tools.Key.Must(sub)
	if _, err := reg.Register(sub, tools.Tool{
		Name:        ToolName,
		Title:       "Sandbox mode",
		Description: toolDescription,
		Parameters:  json.RawMessage(toolParameters),
		Output:      json.RawMessage(toolOutput),
		Execute:     b.switchMode,
		Render:      b.render,
		// The value is small and holds no file content: it is also the MCP
		// summary (sandbox.md §4.2, contract §5.4a).
		Summary:       func(_ tools.Args, v any) any { return v },
		SummarySchema: json.RawMessage(toolOutput),
	}); err != nil {
		return err
	}
	_, err := reg.AddSection(sub, Section)
	return err
}

// described is S(m) of sandbox.md §4.2.
func (b *sandbox) described(m Mode) string {
	if m == WorkspaceWrite {
		return string(m) + " (writes allowed under " + b.roots.shown + ")"
	}
	return string(m)
}

// question is the approval question of sandbox.md §4.3.
func (b *sandbox) question(to, cur Mode, justification string) string {
	what := "files under " + b.roots.shown
	if to == FullAccess {
		what = "any file this server can reach"
	}
	return fmt.Sprintf("Allow the agent to change %s for the rest of this conversation (sandbox mode %s, now %s)? Its reason: %s", what, to, cur, justification)
}

// switchMode runs sandbox_mode (sandbox.md §4.2 "Execution"). Every
// failure is an uncoded error and leaves the mode unchanged.
func (b *sandbox) switchMode(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	raw, given := args.String("mode")
	to := Mode(raw)
	if given && !to.valid() {
		return nil, errors.New(`mode must be one of "read-only", "workspace-write", "full-access"`)
	}
	id, hasConversation := conversationOf(exec)
	cur := b.effective(id, hasConversation)
	if !given {
		return ModeValue{Mode: cur, Previous: cur}, nil
	}
	cannot := func(why string) error {
		return fmt.Errorf("cannot switch the sandbox to %s mode: %s", to, why)
	}
	stays := "; the mode stays " + string(cur)
	switch {
	case !hasConversation:
		return nil, cannot("the call has no conversation")
	case to == cur:
		return ModeValue{Mode: cur, Previous: cur}, nil
	case to.rank() < cur.rank():
		b.set(id, to)
		return ModeValue{Mode: to, Previous: cur}, nil
	}
	justification, _ := args.String("justification")
	if fsapi.IsBlank(justification) {
		return nil, cannot("a wider mode needs a justification (one sentence for the user)" + stays)
	}
	ask := exec.Ask()
	if ask == nil {
		return nil, cannot("the user must approve a wider mode, but this session has no way to ask" + stays)
	}
	answer, err := ask(ctx, b.question(to, cur, justification))
	switch {
	case err != nil:
		return nil, cannot("asking the user failed (" + err.Error() + ")" + stays)
	case answer == tools.Declined:
		return nil, cannot("the user declined" + stays)
	case answer != tools.Approved:
		return nil, cannot("the user cancelled the approval" + stays)
	}
	b.set(id, to) // the user's answer is the last word, whatever happened meanwhile
	return ModeValue{Mode: to, Previous: cur}, nil
}

// render is the one-line result of sandbox.md §4.2 "Result text".
func (b *sandbox) render(args tools.Args, value any) []tools.Block {
	v := value.(ModeValue)
	var text string
	switch {
	case !args.Has("mode"):
		text = "Sandbox mode: " + b.described(v.Mode)
	case v.Mode == v.Previous:
		text = "Sandbox mode unchanged: " + b.described(v.Mode)
	case v.Mode.rank() < v.Previous.rank():
		text = fmt.Sprintf("Sandbox mode changed from %s to %s", v.Previous, b.described(v.Mode))
	default:
		text = fmt.Sprintf("Sandbox mode changed from %s to %s, approved by the user", v.Previous, b.described(v.Mode))
	}
	return []tools.Block{tools.TextBlock(text)}
}
