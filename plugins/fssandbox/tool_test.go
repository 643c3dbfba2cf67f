package fssandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fssandbox"
	"github.com/dsh-go/dsh/plugins/tools"
)

func TestTheToolIsPublishedExactly(t *testing.T) {
	// sandbox.md §4.2: schema bytes, hints, section.
	b := newBox(t, map[string]any{"sessionSwitch": true}, false)
	tool, ok := b.Registry.Lookup(fssandbox.ToolName)
	require.True(t, ok)
	got, err := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}{tool.Name, tool.Description, tool.Parameters})
	require.NoError(t, err)
	assert.Equal(t, `{"name":"sandbox_mode","description":"Show or change the file sandbox mode of this session. Modes from narrowest to widest: read-only (no file changes), workspace-write (changes only under the writable roots), full-access (no sandbox limit). Without mode, it reports the current mode. A narrower mode applies at once; a wider mode needs a justification and the user's approval.","parameters":{"type":"object","properties":{"mode":{"type":"string","enum":["read-only","workspace-write","full-access"],"description":"Mode to switch to. Omit it to report the current mode."},"justification":{"type":"string","description":"Required for a wider mode: one sentence, shown to the user, on why this session needs it."}}}}`, string(got))
	assert.False(t, tool.ReadOnly)
	assert.False(t, tool.Destructive)
	assert.Nil(t, tool.ConcurrencySafe, "exclusive")
	var sec *tools.Section
	for _, s := range b.Registry.Sections() {
		if s.Name == "tool:sandbox_mode" {
			sec = &s
		}
	}
	require.NotNil(t, sec)
	assert.Equal(t, 110, sec.Order)
	assert.Equal(t, "File writes and edits run under this session's sandbox mode: read-only, workspace-write or full-access. When the sandbox refuses a write or edit, its error names the mode that would allow it; if the change is needed, call sandbox_mode with that mode and a one-sentence justification, which the user must approve, and retry only after the switch succeeds. Ask for no more access than the task needs, and use sandbox_mode to return to a narrower mode when you are done.", sec.Text)

	plain := newBox(t, nil, false)
	_, ok = plain.Registry.Lookup(fssandbox.ToolName)
	assert.False(t, ok, "without sessionSwitch there is no tool")
	for _, s := range plain.Registry.Sections() {
		assert.NotEqual(t, "tool:sandbox_mode", s.Name)
	}
}

// asking sets the box session's approval channel.
func (b *box) asking(ask tools.AskFunc) *box {
	b.session.Ask = ask
	return b
}

func TestWideningAsksTheUser(t *testing.T) {
	var asked []string
	answer := func(a tools.Answer, err error) tools.AskFunc {
		return func(_ context.Context, message string) (tools.Answer, error) {
			asked = append(asked, message)
			return a, err
		}
	}
	ro := map[string]any{"mode": "read-only", "sessionSwitch": true}

	t.Run("approved, with the exact question and value", func(t *testing.T) {
		asked = nil
		b := newBox(t, ro, false).asking(answer(tools.Approved, nil))
		res := b.call(t, "sandbox_mode", `{"mode":"full-access","justification":"Update the shared config."}`)
		require.False(t, res.IsError, res.Text())
		assert.Equal(t, "Sandbox mode changed from read-only to full-access, approved by the user", res.Text())
		assert.Equal(t, fssandbox.ModeValue{Mode: fssandbox.FullAccess, Previous: fssandbox.ReadOnly}, res.Value)
		assert.Equal(t, []string{"Allow the agent to change any file this server can reach for the rest of this conversation (sandbox mode full-access, now read-only)? Its reason: Update the shared config."}, asked)
		assert.False(t, b.write(t, "x.txt", "x").IsError)
		res = b.call(t, "sandbox_mode", `{"mode":"workspace-write"}`)
		assert.Equal(t, `Sandbox mode changed from full-access to workspace-write (writes allowed under "`+b.W+`")`, res.Text(), "narrowing asks nobody")
		assert.Len(t, asked, 1)
	})
	t.Run("a failing channel", func(t *testing.T) {
		b := newBox(t, ro, false).asking(answer(0, errors.New("connection reset")))
		res := b.call(t, "sandbox_mode", `{"mode":"workspace-write","justification":"x"}`)
		assert.Equal(t, "Error: cannot switch the sandbox to workspace-write mode: asking the user failed (connection reset); the mode stays read-only", res.Text())
		assert.Empty(t, res.Code())
	})
	t.Run("the call's cancellation while waiting", func(t *testing.T) {
		b := newBox(t, ro, false).asking(func(ctx context.Context, _ string) (tools.Answer, error) {
			select {
			case <-ctx.Done():
				return 0, ctx.Err()
			case <-time.After(10 * time.Second):
				return tools.Approved, nil
			}
		})
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		res := b.Registry.Execute(ctx, "sandbox_mode", json.RawMessage(`{"mode":"workspace-write","justification":"x"}`), &tools.Exec{Conv: b.session})
		assert.True(t, res.IsError)
		assert.Equal(t, "Error: cannot switch the sandbox to workspace-write mode: asking the user failed (context deadline exceeded); the mode stays read-only", res.Text())
		assert.Equal(t, "Sandbox mode: read-only", b.call(t, "sandbox_mode", `{}`).Text())
	})
	t.Run("the user's answer is the last word", func(t *testing.T) {
		// A narrowing that lands while the question waits is overridden
		// by the approval; <cur> is the mode at the start of the call.
		b := newBox(t, map[string]any{"sessionSwitch": true}, false)
		b.asking(func(context.Context, string) (tools.Answer, error) {
			other := &tools.Exec{Conv: &tools.Conversation{ID: b.session.ID, Cwd: b.W}}
			require.False(t, b.Registry.Execute(context.Background(), "sandbox_mode", json.RawMessage(`{"mode":"read-only"}`), other).IsError)
			return tools.Approved, nil
		})
		res := b.call(t, "sandbox_mode", `{"mode":"full-access","justification":"x"}`)
		assert.Equal(t, "Sandbox mode changed from workspace-write to full-access, approved by the user", res.Text())
		assert.Equal(t, "Sandbox mode: full-access", b.call(t, "sandbox_mode", `{}`).Text())
	})
	t.Run("no question without a justification", func(t *testing.T) {
		asked = nil
		b := newBox(t, ro, false).asking(answer(tools.Approved, nil))
		res := b.call(t, "sandbox_mode", "{\"mode\":\"workspace-write\",\"justification\":\"\u00a0\\t\"}")
		assert.Equal(t, "Error: cannot switch the sandbox to workspace-write mode: a wider mode needs a justification (one sentence for the user); the mode stays read-only", res.Text())
		assert.Empty(t, asked)
	})
}

func TestACallWithoutAConversation(t *testing.T) {
	// sandbox.md §4.2 rule 3 and X-E15: nothing to switch, the configured
	// mode, and the operator's next step even with sessionSwitch.
	b := newBox(t, map[string]any{"mode": "read-only", "sessionSwitch": true}, false)
	run := func(tool, args string) tools.Result {
		return b.Registry.Execute(t.Context(), tool, json.RawMessage(args), nil)
	}
	assert.Equal(t, "Sandbox mode: read-only", run("sandbox_mode", `{}`).Text())
	assert.Equal(t, "Error: cannot switch the sandbox to read-only mode: the call has no conversation", run("sandbox_mode", `{"mode":"read-only"}`).Text())
	assert.Equal(t, "Error: mode must be one of \"read-only\", \"workspace-write\", \"full-access\"", run("sandbox_mode", `{"mode":"x"}`).Text(), "the value is checked first")
	res := run("write", `{"file_path":"`+b.W+`/x.txt","content":"x"}`)
	assert.Equal(t, `Error: cannot write "`+b.W+`/x.txt": the sandbox is in read-only mode`+operatorRO, res.Text())
}
