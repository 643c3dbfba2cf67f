package cmd

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/frontend"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// deployment loads the deployment the flags describe.
func (c *common) deployment(env Env) (*config.Deployment, error) {
	for _, id := range c.disable {
		if id == tools.Plugin.Name() {
			return nil, fmt.Errorf("--disable %s: the tool registry is infrastructure and cannot be disabled", id)
		}
	}
	file := c.config
	if file != "" && !filepath.IsAbs(file) && env.Dir != "" {
		file = filepath.Join(env.Dir, file)
	}
	opts := config.Options{File: file, Workspace: c.workspace, Dir: env.Dir, Disable: c.disable, Set: c.set, Environ: env.Environ}
	dep, err := config.Load(opts)
	if err != nil {
		return nil, err
	}
	if fe, ferr := frontEndOf(dep); ferr == nil {
		// serve's transport flags bind to the front end's entry, as
		// --set does, after the other layers.
		if sets := c.transport.sets(fe.ID, fe.Config); len(sets) > 0 {
			opts.Set = append(slices.Clip(opts.Set), sets...)
			if dep, err = config.Load(opts); err != nil {
				return nil, err
			}
		}
	}
	if err := c.applyPolicy(dep); err != nil {
		return nil, err
	}
	return dep, nil
}

// applyPolicy applies `run --policy on|off` to the fspolicy entries,
// adding one when on and none exists.
func (c *common) applyPolicy(dep *config.Deployment) error {
	switch c.policy {
	case "":
		return nil
	case "on", "off":
	default:
		return fmt.Errorf("--policy must be on or off, not %q", c.policy)
	}
	found := false
	for i := range dep.Entries {
		if dep.Entries[i].Name == "fspolicy" {
			dep.Entries[i].Disabled = c.policy == "off"
			found = true
		}
	}
	if !found && c.policy == "on" {
		p, ok := host.Lookup("fspolicy")
		if !ok {
			return errors.New("--policy on: no fspolicy plugin is registered in this binary")
		}
		cfg, err := p.CheckConfig(nil)
		if err != nil {
			return err
		}
		dep.Entries = append(dep.Entries, config.Entry{ID: "fspolicy", Name: "fspolicy", Plugin: p, Config: cfg})
	}
	return nil
}

// shutdownTimeout bounds a command's whole teardown.
const shutdownTimeout = 30 * time.Second

// runtime is a booted deployment.
type runtime struct {
	host *host.Host
	reg  *tools.Registry
	dep  *config.Deployment
	log  *slog.Logger
	// unprotect ends the protection of the deployment file dep was loaded
	// from (protectDeployment).
	unprotect host.Disposer
}

// protectDeployment makes the file r.dep was loaded from a protected
// deployment file (fsapi.ProtectConfig) on the host's set, in place of the
// one registered before: at boot, and after each reload, which so reads
// the set again (the file's identity may have changed, as an editor's
// rename-over gives it a new inode).
func (r *runtime) protectDeployment() error {
	// The new registration comes first, so that the file is never
	// unprotected between the two.
	var d host.Disposer
	if r.dep.Source != config.DefaultSource {
		var err error
		if d, err = fsapi.Protect(r.host.Root(), fsapi.ProtectConfig, r.dep.Source); err != nil {
			return err
		}
	}
	if r.unprotect != nil {
		_ = r.unprotect(context.Background())
	}
	r.unprotect = d
	return nil
}

// boot provides the host's protected files (fsapi.ProtectedKey) with the
// deployment file among them, mounts the tool registry (unless the
// deployment lists `tools`) and every enabled entry in order, then audits: every enabled plugin must be
// ACTIVE (host §3.6). When the audit fails it returns the *host.BootError
// together with the runtime, so `plugins` can still show each instance; the
// caller closes it.
func boot(ctx context.Context, dep *config.Deployment, log *slog.Logger) (*runtime, error) {
	h := host.New(host.WithLogger(log))
	// The protected files come before every plugin, so that no deployment
	// (whatever it mounts or disables) serves a tool without them.
	if _, err := fsapi.ProtectedKey.Provide(h.Root(), fsapi.NewProtected()); err != nil {
		return nil, err
	}
	rt := &runtime{host: h, dep: dep, log: log}
	if err := rt.protectDeployment(); err != nil {
		return nil, err
	}
	listed := false
	for _, e := range dep.Entries {
		if e.Name == tools.Plugin.Name() {
			listed = true
			if e.Disabled {
				return nil, fmt.Errorf("plugin entry %q: the tool registry is infrastructure and cannot be disabled", e.ID)
			}
		}
	}
	if !listed {
		if _, err := h.Plugin(ctx, tools.Plugin, nil); err != nil {
			return nil, err
		}
	}
	for _, e := range dep.Enabled() {
		if frontend.Provides(e.Plugin) {
			continue // serve mounts it last; call and run never start it
		}
		if _, err := h.Plugin(ctx, e.Plugin, e.Config, host.ID(e.ID)); err != nil {
			shutdown(h, log)
			return nil, err
		}
	}
	rt.reg, _ = tools.Key.Get(h.Root())
	if err := h.Audit(); err != nil {
		return rt, err
	}
	return rt, nil
}

// shutdown disposes every plugin, logging disposer failures, within
// shutdownTimeout.
func shutdown(h *host.Host, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		log.Error("shutdown", "err", err)
	}
}

func (r *runtime) close() { shutdown(r.host, r.log) }

// cliPrincipal is the principal of every CLI call (conversations.md §1).
const cliPrincipal = "cli"

// conversation returns a fresh conversation in the workspace, named
// `cli/<kind>/<uuid>`: each `call` (kind "call") and each `run` invocation
// (kind "run") is one conversation (conversations.md §1).
func (r *runtime) conversation(kind string) *tools.Conversation {
	return &tools.Conversation{ID: cliPrincipal + "/" + kind + "/" + newID(), Principal: cliPrincipal, Cwd: r.dep.Workspace}
}

// newID returns a random (version 4) UUID drawn from math/rand/v2, whose
// generator the runtime seeds from the kernel at start. A CLI process names
// its conversation and its calls with these IDs; they guard nothing, and
// crypto/rand's first read (getrandom setting up its per-thread state) is a
// cost a one-shot `dshhost call` need not pay.
func newID() string {
	var id uuid.UUID
	binary.LittleEndian.PutUint64(id[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(id[8:], rand.Uint64())
	id[6] = id[6]&0x0f | 0x40 // version 4 (RFC 9562 §5.4)
	id[8] = id[8]&0x3f | 0x80 // variant 10
	return id.String()
}

// load makes the logger (level is the command's default) and loads the
// deployment; a failure is reported on stderr and ok is false (exit 2).
func (c *common) load(env Env, level slog.Level) (log *slog.Logger, dep *config.Deployment, ok bool) {
	log, err := c.logger(env, level)
	if err == nil {
		dep, err = c.deployment(env)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, program+":", err)
		return nil, nil, false
	}
	return log, dep, true
}

// start loads the deployment and boots it, reporting failures on stderr.
// It returns the exit code to use when it fails.
func start(ctx context.Context, env Env, c *common, level slog.Level) (*runtime, int) {
	log, dep, ok := c.load(env, level)
	if !ok {
		return nil, 2
	}
	rt, err := boot(ctx, dep, log)
	if err != nil {
		fmt.Fprintln(env.Stderr, program+":", err)
		if rt != nil {
			rt.close()
		}
		return nil, 2
	}
	return rt, 0
}
