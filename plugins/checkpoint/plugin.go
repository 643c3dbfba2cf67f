package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Plugin is the `checkpoint` plugin: it injects the `fs` and `tools`
// services, opens the workspace's store (refused inside the workspace;
// protected as the plugin's state), puts its guard on the three intent
// chains and its recorder on fs/observed and conversation/closed,
// registers the tools `checkpoints` and `rewind`, and provides [Key].
// A provider that cannot open raw bytes (fsapi.Opener), or a default
// store location (no DSH_STATE_DIR) inside the workspace, leaves it inert
// with a warning; a DSH_STATE_DIR inside the workspace fails it.
var Plugin = host.Define[Config]("checkpoint", apply,
	host.Inject(fsapi.Key, tools.Key),
	host.Defaults(DefaultConfig))

func init() { host.Register(Plugin) }

// Key is the service of the checkpoint plugin ("checkpoint"), through
// which `dshhost checkpoints` and `dshhost rewind` see every conversation's
// steps.
var Key = host.NewKey[*Checkpoints]("checkpoint")

// Checkpoints is the store of one workspace as the CLI sees it.
type Checkpoints struct {
	r     *recorder
	dir   string
	inert string
}

// Dir returns the store's directory ("" when Inert).
func (c *Checkpoints) Dir() string { return c.dir }

// Inert says why the plugin records nothing (its provider cannot open raw
// bytes, or the default store lies inside the workspace); "" when it
// records. Lines and Rewind of an inert plugin fail with that text.
func (c *Checkpoints) Inert() string { return c.inert }

// Lines returns every step of the store, one line each, oldest first, as
// `dshhost checkpoints` prints them: `<n> <time> <conversation> <tool>
// <changes>` (docs/checkpoints.md), then the steps the store refused
// (`not stored: …`).
func (c *Checkpoints) Lines(ctx context.Context) ([]string, error) {
	if c.inert != "" {
		return nil, errors.New(c.inert)
	}
	if err := c.r.sync(ctx); err != nil {
		return nil, err
	}
	steps, stored, err := c.r.store.snapshot()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = c.r.line(s, true)
	}
	return append(out, lostLines(c.r.lostOf(scope{All: true}, stored))...), nil
}

// Rewind puts the workspace back to its state right after step to
// (0: before the first step in the store), over the steps of every
// conversation, as exec's call: the rules of the `rewind` tool. paths, when
// not empty, are resolved against exec's working directory and limit the
// rewind to them (a directory: to the files under it).
func (c *Checkpoints) Rewind(ctx context.Context, exec *tools.Exec, to int64, paths []string) (Rewound, error) {
	if c.inert != "" {
		return Rewound{To: to}, errors.New(c.inert)
	}
	var keys *pathSet
	if len(paths) > 0 {
		keys = c.r.keysOf(ctx, paths, exec.Cwd())
	}
	args := map[string]any{"to_step": to}
	if len(paths) > 0 {
		args["paths"] = paths
	}
	return c.r.rewind(ctx, exec, args, scope{All: true}, to, keys)
}

func apply(_ context.Context, s *host.Scope, cfg Config) error {
	fsys, reg := fsapi.Key.Must(s), tools.Key.Must(s)
	inert := func(why string) error {
		s.Logger().Warn(why)
		_, err := Key.Provide(s, &Checkpoints{inert: why})
		return err
	}
	open, ok := fsys.(fsapi.Opener)
	if !ok {
		return inert("checkpoint: the fs provider cannot open raw bytes; nothing is recorded")
	}
	ws := cfg.Workspace
	if ws == "" {
		ws, _ = os.Getwd()
	}
	ws = fsapi.RealLocation(ws)
	dir, err := storeDir(ws, os.Getenv)
	if err != nil {
		return err
	}
	if inside(dir, ws) {
		if os.Getenv("DSH_STATE_DIR") == "" {
			// The default location under a workspace such as the home
			// directory: the rest of the deployment serves; this plugin
			// records nothing.
			return inert(fmt.Sprintf("checkpoint: the default store %q is inside the workspace %q, where the tools could change it; nothing is recorded: set DSH_STATE_DIR to a directory outside it", dir, ws))
		}
		return fmt.Errorf("checkpoint: the store %q is inside the workspace %q, where the tools could change it; set DSH_STATE_DIR to a directory outside it", dir, ws)
	}
	st := newStore(dir, cfg.MaxStoreBytes, cfg.MaxAge)
	if _, err := s.Effect("checkpoint store", func(context.Context) error { return st.close() }); err != nil {
		return err
	}
	// Every workspace's store under the same state directory, not only
	// this one's: a root wider than the workspace reaches the others.
	if _, err := fsapi.Protect(s, fsapi.ProtectState, filepath.Dir(dir)); err != nil {
		return err
	}
	r := newRecorder(s, fsys, open, st, cfg.MaxFileBytes)
	if err := s.Go("checkpoint worker", r.run); err != nil {
		return err
	}
	if _, err := events.FSWriteIntent.On(s, guard[*fsapi.WriteIntent](r), host.Prepend()); err != nil {
		return err
	}
	if _, err := events.FSEditIntent.On(s, guard[*fsapi.EditGuard](r), host.Prepend()); err != nil {
		return err
	}
	if _, err := events.FSRemoveIntent.On(s, guard[*fsapi.RemoveGuard](r), host.Prepend()); err != nil {
		return err
	}
	if _, err := events.FSObserved.On(s, r.observed); err != nil {
		return err
	}
	if _, err := events.ConversationClosed.On(s, r.closed); err != nil {
		return err
	}
	always := func(tools.Args) bool { return true }
	if _, err := reg.Register(s, tools.Tool{Name: "checkpoints", Title: "Checkpoints", Description: checkpointsDescription,
		Parameters: json.RawMessage(checkpointsParameters), ReadOnly: true, Execute: r.checkpoints, Render: text, ConcurrencySafe: always}); err != nil {
		return err
	}
	if _, err := reg.Register(s, tools.Tool{Name: "rewind", Title: "Rewind", Description: rewindDescription,
		Parameters: json.RawMessage(rewindParameters), Destructive: true, Execute: r.rewindTool, Render: text}); err != nil {
		return err
	}
	if _, err := reg.AddSection(s, tools.Section{Name: "tool:checkpoints", Order: 110, Text: section}); err != nil {
		return err
	}
	_, err = Key.Provide(s, &Checkpoints{r: r, dir: dir})
	return err
}
