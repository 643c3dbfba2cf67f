package cmd

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"sync"
	"syscall"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/host"
	mcpplugin "github.com/dsh-go/dsh/plugins/mcp"
)

// serve runs `dshhost serve`: the deployment's tools over MCP (plugins/mcp)
// on stdio, or on streamable HTTP with --http ADDR, until the stdio client
// disconnects (EOF) or SIGINT/SIGTERM; then it stops accepting, drains the
// calls in flight (up to the mcp entry's drainTimeout), cancels the rest and
// disposes every plugin, exiting 0. Logs go to stderr only.
//
// The MCP server is the deployment's `mcp` entry (its config, then these
// flags), mounted after every other entry; without one it is mounted with
// its defaults.
//
// The workspace is --workspace (or DSH_WORKSPACE, or the config file's);
// otherwise, on stdio, the client's first usable MCP root, asked for on the
// first tool call when the client supports roots; otherwise the working
// directory. A working directory that is / or the user's home is never used
// as a guess (MCP clients often start servers there): without a root, calls
// then fail with an error saying to pass --workspace. Over HTTP, where every
// client shares the workspace, no client's roots choose it: serve --http
// without a configured workspace refuses to start (conversations.md §4.1).
func serve(ctx context.Context, env Env, c *common, rest []string) int {
	if len(rest) != 0 {
		fmt.Fprintf(env.Stderr, "usage: %s serve [flags]\n", program)
		return 2
	}
	if c.watch && c.config == "" {
		fmt.Fprintln(env.Stderr, program+": --watch needs a deployment file: pass --config FILE")
		return 2
	}
	log, dep, ok := c.load(env, slog.LevelInfo)
	if !ok {
		return 2
	}
	tuneGC()
	ws := &workspace{dir: dep.Workspace, settled: dep.WorkspaceFrom != "default", c: c, env: env}
	if _, cfg, err := c.mcpConfig(dep, env.Environ); err == nil && cfg.HTTP != "" && !ws.settled {
		fmt.Fprintln(env.Stderr, program+" serve: --http needs a workspace (--workspace DIR, DSH_WORKSPACE or workspace: in the deployment)")
		return 2
	}
	if !ws.settled && refusedGuess(dep.Workspace) {
		// Boot on an empty private directory so tools/list and the
		// instructions exist; calls are refused until a root arrives.
		tmp, err := os.MkdirTemp("", "dshhost-unset-workspace-")
		if err != nil {
			fmt.Fprintln(env.Stderr, program+":", err)
			return 2
		}
		defer os.RemoveAll(tmp)
		ws.refused, ws.dir = dep.Workspace, tmp
		if dep, err = c.deploymentIn(env, tmp); err != nil {
			fmt.Fprintln(env.Stderr, program+":", err)
			return 2
		}
	}
	id, cfg, err := c.mcpConfig(dep, env.Environ)
	if err != nil {
		fmt.Fprintln(env.Stderr, program+":", err)
		return 2
	}
	cfg.Name, cfg.Version, cfg.Logger, cfg.Workspace = program, Version, log, ws
	cfg.Stdin, cfg.Stdout, cfg.Stderr = env.Stdin, env.Stdout, env.Stderr
	rt, err := boot(ctx, dep, log)
	if err != nil {
		fmt.Fprintln(env.Stderr, program+":", err)
		if rt != nil {
			rt.close()
		}
		return 2
	}
	defer rt.close()
	ws.rt = rt
	sigctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if c.watch || dep.Watch {
		// Watching starts before the client is served, so that no change
		// made once it is can be missed.
		hold := func() func() {
			if srv, ok := mcpplugin.Key.Get(rt.host.Root()); ok {
				return srv.Hold()
			}
			return func() {}
		}
		stopWatch, err := watchDeployment(sigctx, env, c, ws, rt, hold, log, nil)
		if err != nil {
			fmt.Fprintln(env.Stderr, program+":", err)
			return 2
		}
		defer stopWatch() // before rt.close: no reload races the shutdown
	}
	inst, err := rt.host.Plugin(ctx, mcpplugin.Plugin, cfg, host.ID(id))
	if err == nil {
		err = inst.Wait(ctx)
	}
	srv, ok := mcpplugin.Key.Get(rt.host.Root())
	if err != nil || !ok {
		fmt.Fprintln(env.Stderr, program+":", cmp.Or(err, errors.New("the MCP server did not start")))
		return 2
	}
	transport := "stdio"
	if srv.URL() != "" {
		transport = srv.URL()
	}
	log.Info("serving MCP", "on", transport, "workspace", ws.describe(), "tools", len(rt.reg.Tools()))
	select {
	case <-sigctx.Done():
	case <-srv.Done():
	}
	log.Info("shutting down")
	if err := srv.Shutdown(context.Background()); err != nil {
		log.Warn("shutdown", "err", err)
	}
	return 0
}

// mcpConfig returns the id and config of the deployment's mcp entry (the
// plugin's defaults without one) with serve's flags applied, validated.
func (c *common) mcpConfig(dep *config.Deployment, environ []string) (string, mcpplugin.Config, error) {
	id, cfg := mcpplugin.Plugin.Name(), mcpplugin.Plugin.DefaultConfig().(mcpplugin.Config)
	for _, e := range dep.Entries {
		if e.Plugin == mcpplugin.Plugin {
			if e.Disabled {
				return "", cfg, fmt.Errorf("plugin entry %q: serve needs the MCP server, which is disabled", e.ID)
			}
			id, cfg = e.ID, e.Config.(mcpplugin.Config)
		}
	}
	m := c.mcp
	cfg.Token = cmp.Or(cfg.Token, lookupEnv(environ, config.MCPTokenVariable)) // a deployment without an mcp entry
	cfg.Environ = environ
	cfg.HTTP = cmp.Or(m.http, cfg.HTTP)
	if m.tokenFile != "" {
		cfg.TokenFile, cfg.Token = m.tokenFile, ""
	}
	cfg.NoAuth = cfg.NoAuth || m.noAuth
	cfg.TLSCert, cfg.TLSKey = cmp.Or(m.tlsCert, cfg.TLSCert), cmp.Or(m.tlsKey, cfg.TLSKey)
	cfg.AllowOrigins = append(cfg.AllowOrigins, m.allowOrigins...)
	cfg.AllowHosts = append(cfg.AllowHosts, m.allowHosts...)
	if _, err := mcpplugin.Plugin.CheckConfig(cfg); err != nil {
		return "", cfg, err
	}
	return id, cfg, nil
}

// mcpFlags are serve's own flags; they override the mcp entry's keys.
type mcpFlags struct {
	http, tokenFile, tlsCert, tlsKey string
	noAuth                           bool
	allowOrigins, allowHosts         listFlag
}

func (m *mcpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.http, "http", "", "serve streamable HTTP on `ADDR` (host:port; 127.0.0.1:0 picks a port) at /mcp instead of stdio")
	fs.StringVar(&m.tokenFile, "token-file", "", "read the HTTP bearer token from `FILE` (default: DSH_MCP_TOKEN, else a generated one printed once)")
	fs.BoolVar(&m.noAuth, "no-auth", false, "serve HTTP without a token (loopback addresses only)")
	fs.StringVar(&m.tlsCert, "tls-cert", "", "serve HTTPS with this certificate `FILE` (PEM; needs --tls-key)")
	fs.StringVar(&m.tlsKey, "tls-key", "", "the private key `FILE` of --tls-cert (PEM)")
	fs.Var(&m.allowOrigins, "allow-origin", "also accept requests with this `ORIGIN` (scheme://host[:port]; repeatable)")
	fs.Var(&m.allowHosts, "allow-host", "also accept requests with this Host `NAME` (repeatable; for 0.0.0.0 listeners and proxies)")
}

// refusedGuess reports whether dir is / or the user's home directory.
func refusedGuess(dir string) bool {
	if dir == "/" {
		return true
	}
	home, err := os.UserHomeDir()
	return err == nil && filepath.Clean(home) == filepath.Clean(dir)
}

// deploymentIn loads the deployment with dir as the workspace.
func (c *common) deploymentIn(env Env, dir string) (*config.Deployment, error) {
	cc := *c
	cc.workspace = dir
	return cc.deployment(env)
}

// workspace is serve's current workspace; it is the MCP plugin's
// mcp.Workspace. change serialises what changes the running deployment
// (adopting the client's root, a config reload) and is held for as long as
// that takes; mu guards the fields and is held only to read or write them,
// so a call reading the workspace (Dir, Ready) never waits on a reload or a
// retarget in progress.
type workspace struct {
	change  sync.Mutex
	mu      sync.Mutex
	dir     string
	settled bool   // chosen by flag, env or file: never retargeted
	refused string // the refused guess, until a root arrives
	noRoot  string // why the client's roots gave no workspace, once asked

	c   *common
	env Env
	rt  *runtime
}

// Dir is the working directory of new sessions.
func (w *workspace) Dir() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dir
}

// describe names the workspace for logs: the directory, or what it waits
// for.
func (w *workspace) describe() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.refused != "":
		return "(pending: the client's roots; " + w.refused + " is not used as a guess)"
	case !w.settled:
		return w.dir + " (unless the client offers roots)"
	}
	return w.dir
}

// Ready fails calls while the workspace is a refused guess.
func (w *workspace) Ready() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.refused != "" && w.noRoot != "" && w.noRoot != "the client offered no roots":
		return fmt.Errorf("%s has no workspace: it was started in %s and %s; restart it with --workspace DIR", program, w.refused, w.noRoot)
	case w.refused != "":
		return fmt.Errorf("%s has no workspace: it was started in %s and the client offered no roots; restart it with --workspace DIR", program, w.refused)
	}
	return nil
}

// UseRoot makes dir the workspace unless one was chosen explicitly or a
// root was already taken: every entry whose config depends on the workspace
// is updated (fslocal restarts, and toolfs with it).
func (w *workspace) UseRoot(ctx context.Context, dir string) error {
	rt, c, env := w.rt, w.c, w.env
	w.change.Lock()
	defer w.change.Unlock()
	w.mu.Lock()
	settled, same := w.settled, dir == w.dir
	w.settled = true
	if !settled && same {
		w.refused = ""
	}
	w.mu.Unlock()
	if settled || same {
		return nil
	}
	if srv, ok := mcpplugin.Key.Get(rt.host.Root()); ok {
		// The tools restart with the provider: one tool set reaches the
		// client, unchanged, so no tools/list_changed is sent.
		defer srv.Hold()()
	}
	dep, err := c.deploymentIn(env, dir)
	if err != nil {
		return err
	}
	for _, e := range dep.Enabled() {
		if e.Plugin == mcpplugin.Plugin {
			continue // serve's own, mounted with its flags
		}
		old, ok := rt.dep.Entry(e.ID)
		if !ok || reflect.DeepEqual(old.Config, e.Config) {
			continue
		}
		if inst := rt.host.Instance(e.ID); inst != nil {
			if err := inst.Update(ctx, e.Config); err != nil {
				return err
			}
		}
	}
	if err := rt.host.Audit(); err != nil {
		return err
	}
	rt.dep = dep
	w.mu.Lock()
	w.dir, w.refused = dir, ""
	w.mu.Unlock()
	rt.log.Info("workspace set from the client's first usable root", "workspace", dir)
	return nil
}

// Pending reports whether the workspace still waits for the client's
// roots.
func (w *workspace) Pending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.settled
}

// NoRoot stops asking for roots; reason is kept for Ready's message.
func (w *workspace) NoRoot(reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settled, w.noRoot = true, reason
}
