package fssandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fssandbox"
	"github.com/dsh-go/dsh/plugins/tools"
)

// actor is a minimal events.Actor.
type actor struct{ session string }

func (a actor) Conversation() (string, bool) { return a.session, a.session != "" }
func (a actor) SessionID() (string, bool)    { return a.Conversation() }
func (a actor) Principal() string            { return "test" }
func (a actor) ToolName() string             { return "write" }

// realFS is a provider stand-in whose real location of a target is its key.
type realFS struct{ fsapi.FileSystem }

func (realFS) RealPath(t fsapi.Target) (string, bool) { return t.Key, true }

func mount(t *testing.T, h *host.Host, cfg fssandbox.Config) *host.Instance {
	t.Helper()
	inst, err := h.Plugin(t.Context(), fssandbox.Plugin, cfg)
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))
	return inst
}

func dispatchWrite(t *testing.T, h *host.Host, target fsapi.Target, a events.Actor) (*fsapi.WriteIntent, error) {
	t.Helper()
	return events.FSWriteIntent.Waterfall(t.Context(), h.Root(), events.IntentRequest{Target: target, Actor: a},
		func(context.Context) (*fsapi.WriteIntent, error) {
			return &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}, nil
		})
}

func TestTheGuardFailsClosedWithoutARealLocation(t *testing.T) {
	// sandbox.md §3.3: no "fs" service, or one without RealPath, is outside
	// the roots; full-access never asks.
	w := t.TempDir()
	target := fsapi.Target{Key: w + "/a.txt", DisplayPath: w + "/a.txt"}
	for name, provide := range map[string]func(*host.Scope) error{
		"no fs service": func(*host.Scope) error { return nil },
		"no RealPather": func(s *host.Scope) error { _, err := fsapi.Key.Provide(s, struct{ fsapi.FileSystem }{}); return err },
	} {
		t.Run(name, func(t *testing.T) {
			h := host.New()
			defer h.Shutdown(context.Background())
			require.NoError(t, provide(h.Root()))
			mount(t, h, fssandbox.Config{Mode: fssandbox.WorkspaceWrite, Workspace: w})
			_, err := dispatchWrite(t, h, target, actor{session: "s"})
			var fe *fsapi.Error
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, fsapi.CodeSandboxDenied, fe.Code)
		})
	}
	t.Run("full-access passes next's result unchanged", func(t *testing.T) {
		h := host.New()
		defer h.Shutdown(context.Background())
		mount(t, h, fssandbox.Config{Mode: fssandbox.FullAccess, Workspace: w})
		wi, err := dispatchWrite(t, h, target, actor{session: "s"})
		require.NoError(t, err)
		assert.Equal(t, &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}, wi)
	})
	t.Run("the provider is looked up at each check", func(t *testing.T) {
		h := host.New()
		defer h.Shutdown(context.Background())
		mount(t, h, fssandbox.Config{Mode: fssandbox.WorkspaceWrite, Workspace: w})
		_, err := dispatchWrite(t, h, target, nil)
		require.Error(t, err, "no provider yet")
		_, err = fsapi.Key.Provide(h.Root(), realFS{})
		require.NoError(t, err)
		wi, err := dispatchWrite(t, h, target, nil)
		require.NoError(t, err, "a provider that came later is used without a restart")
		assert.Equal(t, &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}, wi, "a guard returns next's result unchanged")
	})
}

func TestTheSandboxRunsBeforeThePolicyWhateverTheMountOrder(t *testing.T) {
	// sandbox.md §3.1, X-E2: an unread edit is the sandbox's refusal, not
	// "edit requires reading".
	b := newBox(t, map[string]any{"mode": "read-only"}, false).layout(t)
	require.NoError(t, b.Sandbox.Dispose(t.Context()))
	inst, err := b.Host.Plugin(t.Context(), fssandbox.Plugin, fssandbox.Config{Mode: fssandbox.ReadOnly, Workspace: b.W})
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))
	res := b.call(t, "edit", `{"file_path":"a.txt","old_string":"hello","new_string":"bye"}`)
	assert.Equal(t, `Error: cannot edit "`+b.W+`/a.txt": the sandbox is in read-only mode`+operatorRO, res.Text())
	assert.Equal(t, "FS_SANDBOX_DENIED", res.Code())
	assert.Equal(t, "hello\n", b.content(t, "a.txt"))
}

func TestALaterGuardRunsFirst(t *testing.T) {
	// sandbox.md §3.1: among prepended guards the most recently registered
	// runs first, so a guard mounted after fssandbox wins.
	b := newBox(t, map[string]any{"mode": "read-only"}, false)
	later := errors.New("protected")
	_, err := events.FSWriteIntent.On(b.Host.Root(), func(context.Context, events.IntentRequest, host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
		return nil, later
	}, host.Prepend())
	require.NoError(t, err)
	assert.Equal(t, "Error: protected", b.write(t, "x.txt", "x").Text())
}

func TestDisposingTheSandboxLeavesNothingBehind(t *testing.T) {
	// sandbox.md §1 "Lifecycle": guards, tool, section and modes go; writes
	// behave as without it; a new instance starts with no session modes.
	b := newBox(t, nil, false)
	require.NoError(t, b.Sandbox.Dispose(t.Context()))
	baseline := b.Host.Counts()
	tools0 := len(b.Registry.Tools())
	cfg := fssandbox.Config{Mode: fssandbox.ReadOnly, SessionSwitch: true, Workspace: b.W}
	inst, err := b.Host.Plugin(t.Context(), fssandbox.Plugin, cfg)
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))
	assert.Len(t, b.Registry.Tools(), tools0+1, "sandbox_mode is registered")
	assert.Contains(t, b.Registry.Prompt(), fssandbox.Section.Text)
	require.NoError(t, b.Sandbox.Dispose(t.Context())) // already disposed: no-op
	require.NoError(t, inst.Dispose(t.Context()))
	assert.Equal(t, baseline, b.Host.Counts(), "mount then unmount returns to baseline")
	assert.Len(t, b.Registry.Tools(), tools0)
	assert.NotContains(t, b.Registry.Prompt(), fssandbox.Section.Text)
	assert.False(t, b.write(t, "x.txt", "x").IsError, "writes behave as without the sandbox")
}

func TestModesAreKeptPerSessionAndDroppedWithIt(t *testing.T) {
	// sandbox.md §4.1: a narrowed session stays narrow, others keep the
	// configured mode; session/closed drops the entry; Update drops all.
	b := newBox(t, map[string]any{"sessionSwitch": true}, false)
	s2 := &tools.Exec{Conv: b.Stack.Conversation("s2")}
	require.False(t, b.call(t, "sandbox_mode", `{"mode":"read-only"}`).IsError)
	assert.Contains(t, b.write(t, "x.txt", "x").Text(), "read-only mode")
	res := b.Registry.Execute(t.Context(), "write", []byte(`{"file_path":"y.txt","content":"y"}`), s2)
	assert.False(t, res.IsError, "another session is not affected: %s", res.Text())

	nested := &tools.Exec{Conv: b.session, Parent: &tools.Exec{Conv: b.session, Tool: "batch"}}
	res = b.Registry.Execute(t.Context(), "write", []byte(`{"file_path":"n.txt","content":"n"}`), nested)
	assert.Contains(t, res.Text(), "read-only mode", "a nested call belongs to the same session")

	require.NoError(t, events.SessionClosed.Emit(t.Context(), b.Host.Root(), "s1"))
	assert.Equal(t, `Sandbox mode: workspace-write (writes allowed under "`+b.W+`")`, b.call(t, "sandbox_mode", `{}`).Text(), "the closed session's mode is gone")

	require.False(t, b.call(t, "sandbox_mode", `{"mode":"read-only"}`).IsError)
	require.NoError(t, b.Sandbox.Update(t.Context(), fssandbox.Config{Mode: fssandbox.WorkspaceWrite, SessionSwitch: true, Workspace: b.W}))
	require.NoError(t, b.Sandbox.Wait(t.Context()))
	assert.False(t, b.write(t, "x.txt", "x").IsError, "an updated instance starts with no session modes")
}

func TestModesSurviveARegistryRestart(t *testing.T) {
	// sandbox.md §1: the tool comes and goes with the registry; the guards
	// and the per-session modes stay.
	b := newBox(t, map[string]any{"sessionSwitch": true}, false)
	require.False(t, b.call(t, "sandbox_mode", `{"mode":"read-only"}`).IsError)
	toolsInst := b.Host.Instance("tools")
	require.NotNil(t, toolsInst)
	require.NoError(t, toolsInst.Restart(t.Context()))
	require.NoError(t, b.ToolFS.Wait(t.Context()))
	reg, ok := tools.Key.Get(b.Host.Root())
	require.True(t, ok)
	b.Registry = reg
	assert.Equal(t, "Sandbox mode: read-only", b.call(t, "sandbox_mode", `{}`).Text(), "the tool is back on the new registry, the mode kept")
	assert.Contains(t, b.write(t, "x.txt", "x").Text(), "read-only mode")
	assert.Equal(t, host.StateActive, b.Sandbox.State(), "fssandbox was not restarted")
}

func TestConcurrentSessionsKeepTheirOwnModes(t *testing.T) {
	// sandbox.md §3.6, §4.1: sessions switching and writing at once never
	// see each other's mode (run with -race).
	b := newBox(t, map[string]any{"sessionSwitch": true}, true)
	var wg sync.WaitGroup
	results := make([][2]tools.Result, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exec := &tools.Exec{Conv: &tools.Conversation{ID: fmt.Sprintf("s%d", i), Cwd: b.W}}
			if i%2 == 0 {
				b.Registry.Execute(context.Background(), "sandbox_mode", json.RawMessage(`{"mode":"read-only"}`), exec)
			}
			args := json.RawMessage(fmt.Sprintf(`{"file_path":"f%d.txt","content":"x"}`, i))
			results[i][0] = b.Registry.Execute(context.Background(), "write", args, exec)
			results[i][1] = b.Registry.Execute(context.Background(), "sandbox_mode", json.RawMessage(`{}`), exec)
		}()
	}
	wg.Wait()
	for i, r := range results {
		if i%2 == 0 {
			assert.Contains(t, r[0].Text(), "read-only mode", "session %d narrowed", i)
			assert.Equal(t, "Sandbox mode: read-only", r[1].Text())
		} else {
			assert.False(t, r[0].IsError, "session %d: %s", i, r[0].Text())
			assert.Contains(t, r[1].Text(), "Sandbox mode: workspace-write")
		}
	}
}
