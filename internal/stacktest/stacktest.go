// Package stacktest assembles the default filesystem stack on a fresh host
// for tests and benchmarks, as fxtest does for fx: the host's protected
// set, the tool registry, fslocal confined to a fresh workspace, fspolicy
// (unless asked not to), toolfs, toolfiles and toolsearch. It is imported
// only from _test.go files.
package stacktest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/checkpoint"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
	"github.com/dsh-go/dsh/plugins/fspolicy"
	"github.com/dsh-go/dsh/plugins/fssandbox"
	"github.com/dsh-go/dsh/plugins/tooleditor"
	"github.com/dsh-go/dsh/plugins/toolfiles"
	"github.com/dsh-go/dsh/plugins/toolfs"
	"github.com/dsh-go/dsh/plugins/tools"
	"github.com/dsh-go/dsh/plugins/toolsearch"
)

// Stack is the default deployment on one host.
type Stack struct {
	Host     *host.Host
	Registry *tools.Registry
	// FS, Policy, ToolFS and ToolSearch are the instances; Policy is nil
	// without the policy.
	FS, Policy, ToolFS, ToolSearch *host.Instance
	// ToolFiles is the toolfiles instance (move, delete, mkdir, file_info).
	ToolFiles *host.Instance
	// Editor is the tooleditor instance, nil unless Options.ToolEditor.
	Editor *host.Instance
	// Sandbox is the fssandbox instance, nil unless Options.FSSandbox.
	Sandbox *host.Instance
	// Checkpoint is the checkpoint instance, nil unless Options.Checkpoint.
	Checkpoint *host.Instance
	// W is the workspace: a fresh, symlink-free temporary directory, the
	// provider's cwd and confinement root.
	W string
	// Protected is the host's protected set (fsapi.ProtectedKey), provided
	// on the root scope before any plugin, as dshhost does: empty until a
	// test adds to it.
	Protected *fsapi.Protected
}

// Options change the stack.
type Options struct {
	// NoPolicy leaves fspolicy out (the bare provider).
	NoPolicy bool
	// ToolFS is toolfs's raw config (nil: defaults).
	ToolFS map[string]any
	// ToolFiles is toolfiles's raw config (nil: defaults).
	ToolFiles map[string]any
	// ToolSearch is toolsearch's raw config (nil: defaults).
	ToolSearch map[string]any
	// FSLocal holds fslocal config overrides, applied over the stack's cwd
	// and root (nil: none).
	FSLocal map[string]any
	// ToolEditor, when not nil, mounts tooleditor after toolfs with this raw
	// config (empty: defaults).
	ToolEditor map[string]any
	// W is the workspace to use instead of a fresh one.
	W string
	// FSSandbox, when non-nil, mounts fssandbox with this raw config right
	// after fslocal, its workspace defaulted to (or a relative one taken
	// against) W as dshhost does (sandbox.md §5).
	FSSandbox map[string]any
	// Checkpoint, when non-nil, mounts the checkpoint plugin last with this
	// raw config, its workspace W; the test sets DSH_STATE_DIR.
	Checkpoint map[string]any
}

// New mounts the stack, fails tb when any plugin is not ACTIVE, and shuts
// the host down at the end of the test.
func New(tb testing.TB, opts Options) *Stack {
	tb.Helper()
	w := opts.W
	if w == "" {
		var err error
		if w, err = filepath.EvalSymlinks(tb.TempDir()); err != nil {
			tb.Fatal(err)
		}
	}
	h := host.New()
	tb.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	s := &Stack{Host: h, W: w, Protected: fsapi.NewProtected()}
	if _, err := fsapi.ProtectedKey.Provide(h.Root(), s.Protected); err != nil {
		tb.Fatal(err)
	}
	// mount decodes a raw config as a deployment file's would be (config
	// is the one decoder, host §3.7; a typed config is only validated),
	// then mounts it.
	mount := func(p *host.Plugin, raw any) *host.Instance {
		cfg, err := config.Decode(p, raw)
		if err != nil {
			tb.Fatal(err)
		}
		inst, err := h.Plugin(context.Background(), p, cfg)
		if err != nil {
			tb.Fatal(err)
		}
		return inst
	}
	mount(tools.Plugin, nil)
	fsCfg := map[string]any{"cwd": w, "root": w}
	for k, v := range opts.FSLocal {
		fsCfg[k] = v
	}
	s.FS = mount(fslocal.Plugin, fsCfg)
	if opts.FSSandbox != nil {
		s.Sandbox = mount(fssandbox.Plugin, sandboxConfig(tb, opts.FSSandbox, w))
	}
	if !opts.NoPolicy {
		s.Policy = mount(fspolicy.Plugin, nil)
	}
	s.ToolFS = mount(toolfs.Plugin, opts.ToolFS)
	s.ToolFiles = mount(toolfiles.Plugin, opts.ToolFiles)
	s.ToolSearch = mount(toolsearch.Plugin, opts.ToolSearch)
	if opts.ToolEditor != nil {
		s.Editor = mount(tooleditor.Plugin, opts.ToolEditor)
	}
	if opts.Checkpoint != nil {
		cfg, err := config.Decode(checkpoint.Plugin, opts.Checkpoint)
		if err != nil {
			tb.Fatal(err)
		}
		c := cfg.(checkpoint.Config)
		c.UseWorkspace(w)
		if s.Checkpoint, err = h.Plugin(context.Background(), checkpoint.Plugin, c); err != nil {
			tb.Fatal(err)
		}
	}
	if err := h.Audit(); err != nil {
		tb.Fatal(err)
	}
	reg, ok := tools.Key.Get(h.Root())
	if !ok {
		tb.Fatal("no tool registry")
	}
	s.Registry = reg
	return s
}

// Conversation returns a conversation with the given id, of the principal
// "test", whose cwd is the workspace.
func (s *Stack) Conversation(id string) *tools.Conversation {
	return &tools.Conversation{ID: id, Principal: "test", Cwd: s.W}
}

// Call runs one top-level call in conversation conv (nil: none) with args
// as JSON text.
func (s *Stack) Call(ctx context.Context, conv *tools.Conversation, tool, args string) tools.Result {
	return s.Registry.Execute(ctx, tool, json.RawMessage(args), &tools.Exec{Conv: conv})
}

// sandboxConfig decodes raw as fssandbox's config and applies the workspace
// w to it, as dshhost's loader does (config.WorkspaceUser).
func sandboxConfig(tb testing.TB, raw map[string]any, w string) fssandbox.Config {
	tb.Helper()
	cfg, err := config.Decode(fssandbox.Plugin, raw)
	if err != nil {
		tb.Fatal(err)
	}
	c := cfg.(fssandbox.Config)
	c.UseWorkspace(w)
	return c
}
