package cmd

import (
	"cmp"
	"context"
	"encoding/json"
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
	"github.com/dsh-go/dsh/plugins/frontend"
)

// serve runs `dshhost serve`: the deployment's tools served by its front
// end (the entry whose plugin provides "frontend": the `mcp` plugin, over
// stdio or, with --http ADDR, streamable HTTP) until the transport ends
// (stdio EOF) or SIGINT/SIGTERM; then it stops accepting, drains the calls
// in flight (up to the front end's drain timeout), cancels the rest and
// disposes every plugin, exiting 0. Logs go to stderr only.
//
// The front end is mounted after every other entry, configured by its
// entry and then by serve's transport flags, which bind to that entry's
// keys. A deployment without an enabled front end is refused.
//
// The workspace is --workspace (or DSH_WORKSPACE, or the config file's);
// otherwise, on stdio, the client's first usable MCP root, asked for on the
// first tool call when the client supports roots; otherwise the working
// directory. A working directory that is / or the user's home is never used
// as a guess (MCP clients often start servers there): without a root, calls
// then fail with an error saying to pass --workspace. A front end whose
// clients share the workspace (HTTP) takes no client's roots: serve --http
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
	fe, err := frontEndOf(dep)
	if err != nil {
		fmt.Fprintln(env.Stderr, program+" serve:", err)
		return 2
	}
	tuneGC()
	ws := &workspace{dir: dep.Workspace, settled: dep.WorkspaceFrom != "default", c: c, env: env}
	if sw, ok := fe.Config.(frontend.SharedWorkspace); ok && sw.SharedWorkspace() && !ws.settled {
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
		if fe, err = frontEndOf(dep); err != nil {
			fmt.Fprintln(env.Stderr, program+" serve:", err)
			return 2
		}
	}
	mount := frontend.Mount{Name: program, Version: Version, Logger: log, Workspace: ws,
		Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Environ: env.Environ}
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
		hold := func() (release func()) {
			if srv, ok := frontend.Key.Get(rt.host.Root()); ok {
				return srv.Hold()
			}
			return func() {}
		}
		stopWatch, err := watchDeployment(sigctx, env, c, ws, rt, hold, mount, log, nil)
		if err != nil {
			fmt.Fprintln(env.Stderr, program+":", err)
			return 2
		}
		defer stopWatch() // before rt.close: no reload races the shutdown
	}
	inst, err := rt.host.Plugin(ctx, fe.Plugin, mounted(fe.Config, mount), host.ID(fe.ID))
	if err == nil {
		err = inst.Wait(ctx)
	}
	srv, ok := frontend.Key.Get(rt.host.Root())
	if err != nil || !ok {
		fmt.Fprintln(env.Stderr, program+":", cmp.Or(err, fmt.Errorf("the front end %q did not start", fe.ID)))
		return 2
	}
	log.Info("serving", "on", srv.Endpoint(), "workspace", ws.describe(), "tools", len(rt.reg.Tools()))
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

// frontEndOf returns the deployment's front end: its one enabled entry
// whose plugin provides "frontend".
func frontEndOf(dep *config.Deployment) (config.Entry, error) {
	var disabled string
	var found []config.Entry
	for _, e := range dep.Entries {
		switch {
		case !frontend.Provides(e.Plugin):
		case e.Disabled:
			disabled = e.ID
		default:
			found = append(found, e)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return config.Entry{}, fmt.Errorf("the deployment has %d front ends (%q and %q); serve mounts exactly one", len(found), found[0].ID, found[1].ID)
	case disabled != "":
		return config.Entry{}, fmt.Errorf("the front end %q is disabled; serve needs it", disabled)
	}
	return config.Entry{}, fmt.Errorf(`the deployment has no front end (no entry provides %q); add "- name: mcp"`, frontend.Key.Name())
}

// mounted returns a front end's config with m applied, when its config
// type takes one (frontend.Mountable).
func mounted(cfg any, m frontend.Mount) any {
	if mc, ok := cfg.(frontend.Mountable); ok {
		return mc.WithMount(m)
	}
	return cfg
}

// transportFlags are serve's own flags. They bind to the keys of the front
// end's entry (http, tokenFile, noAuth, tlsCert, tlsKey; allowOrigins and
// allowHosts are added to), as `--set <id>.<key>=...` would.
type transportFlags struct {
	http, tokenFile, tlsCert, tlsKey string
	noAuth                           bool
	allowOrigins, allowHosts         listFlag
}

func (m *transportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.http, "http", "", "serve streamable HTTP on `ADDR` (host:port; 127.0.0.1:0 picks a port) at /mcp instead of stdio")
	fs.StringVar(&m.tokenFile, "token-file", "", "read the HTTP bearer token from `FILE` (default: DSH_MCP_TOKEN, else a generated one printed once)")
	fs.BoolVar(&m.noAuth, "no-auth", false, "serve HTTP without a token (loopback addresses only)")
	fs.StringVar(&m.tlsCert, "tls-cert", "", "serve HTTPS with this certificate `FILE` (PEM; needs --tls-key)")
	fs.StringVar(&m.tlsKey, "tls-key", "", "the private key `FILE` of --tls-cert (PEM)")
	fs.Var(&m.allowOrigins, "allow-origin", "also accept requests with this `ORIGIN` (scheme://host[:port]; repeatable)")
	fs.Var(&m.allowHosts, "allow-host", "also accept requests with this Host `NAME` (repeatable; for 0.0.0.0 listeners and proxies)")
}

// sets returns the flags as `<id>.<key>=<JSON value>` overrides of the
// front end entry id, whose config is cfg; none when no flag is given.
func (m *transportFlags) sets(id string, cfg any) []string {
	var out []string
	set := func(key string, v any) {
		b, _ := json.Marshal(v)
		out = append(out, id+"."+key+"="+string(b))
	}
	if m.http != "" {
		set("http", m.http)
	}
	if m.tokenFile != "" {
		set("tokenFile", m.tokenFile)
		set("token", "") // the file replaces DSH_MCP_TOKEN
	}
	if m.noAuth {
		set("noAuth", true)
	}
	if m.tlsCert != "" {
		set("tlsCert", m.tlsCert)
	}
	if m.tlsKey != "" {
		set("tlsKey", m.tlsKey)
	}
	var keys map[string]any
	if len(m.allowOrigins)+len(m.allowHosts) > 0 {
		b, _ := json.Marshal(cfg)
		_ = json.Unmarshal(b, &keys)
	}
	for _, l := range []struct {
		key   string
		extra listFlag
	}{{"allowOrigins", m.allowOrigins}, {"allowHosts", m.allowHosts}} {
		if len(l.extra) == 0 {
			continue
		}
		list, _ := keys[l.key].([]any)
		for _, v := range l.extra {
			list = append(list, v)
		}
		set(l.key, list)
	}
	return out
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
	if srv, ok := frontend.Key.Get(rt.host.Root()); ok {
		// The tools restart with the provider: one tool set reaches the
		// client, unchanged, so no tools/list_changed is sent.
		defer srv.Hold()()
	}
	dep, err := c.deploymentIn(env, dir)
	if err != nil {
		return err
	}
	for _, e := range dep.Enabled() {
		if frontend.Provides(e.Plugin) {
			continue // serve's own, mounted with its flags and mount
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
