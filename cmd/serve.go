package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/mcpserver"
)

// serve runs `dshhost serve`: the deployment's tools over MCP on stdio
// until the client disconnects (EOF) or SIGINT/SIGTERM, then disposes every
// plugin. Logs go to stderr only.
//
// The workspace is --workspace (or DSH_WORKSPACE, or the config file's);
// otherwise the client's first MCP root, asked for on the first tool call
// when the client supports roots; otherwise the working directory. A working
// directory that is / or the user's home is never used as a guess (MCP
// clients often start servers there): without a root, calls then fail with
// an error saying to pass --workspace.
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
	ws := &workspace{dir: dep.Workspace, settled: dep.WorkspaceFrom != "default"}
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
	rt, err := boot(ctx, dep, log)
	if err != nil {
		fmt.Fprintln(env.Stderr, program+":", err)
		return 2
	}
	defer rt.close()
	srv, err := mcpserver.New(rt.host.Root(), rt.reg, mcpserver.Options{
		Name: program, Version: Version, Logger: log,
		Cwd:       ws.current,
		Ready:     ws.ready,
		NeedRoots: func() bool { return !ws.isSettled() },
		UseRoots: func(ctx context.Context, roots []*mcp.Root) {
			dir, err := usableRoot(roots)
			if err != nil {
				ws.settle(err.Error())
				log.Info("no workspace from the client's roots", "reason", err)
				return
			}
			if err := ws.retarget(ctx, rt, c, env, dir); err != nil {
				log.Error("cannot use the client's root as the workspace", "root", dir, "err", err)
			}
		},
	})
	if err != nil {
		fmt.Fprintln(env.Stderr, program+":", err)
		return 2
	}
	sigctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if c.watch || dep.Watch {
		stopWatch, err := watchDeployment(sigctx, env, c, ws, rt, srv, log, nil)
		if err != nil {
			fmt.Fprintln(env.Stderr, program+":", err)
			return 2
		}
		defer stopWatch() // before rt.close: no reload races the shutdown
	}
	if c.http.addr != "" {
		log.Info("serving MCP over streamable HTTP", "workspace", ws.describe(), "tools", len(rt.reg.Tools()))
		code := serveHTTP(sigctx, env, c.http, srv, log)
		log.Info("shutting down")
		return code
	}
	log.Info("serving MCP on stdio", "workspace", ws.describe(), "tools", len(rt.reg.Tools()))
	err = srv.Run(sigctx, &mcpserver.StdioTransport{Reader: env.Stdin, Writer: env.Stdout})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		log.Error("mcp server stopped", "err", err)
	}
	log.Info("shutting down")
	return 0
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

// workspace is serve's current workspace. change serialises what changes
// the running deployment (adopting the client's root, a config reload) and
// is held for as long as that takes; mu guards the fields and is held only
// to read or write them, so a call reading the workspace (Cwd, Ready) never
// waits on a reload or a retarget in progress.
type workspace struct {
	change  sync.Mutex
	mu      sync.Mutex
	dir     string
	settled bool   // chosen by flag, env or file: never retargeted
	refused string // the refused guess, until a root arrives
	noRoot  string // why the client's roots gave no workspace, once asked
}

func (w *workspace) current() string {
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

func (w *workspace) ready() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.refused != "" && w.noRoot != "" && w.noRoot != errNoRoots.Error():
		return fmt.Errorf("%s has no workspace: it was started in %s and %s; restart it with --workspace DIR", program, w.refused, w.noRoot)
	case w.refused != "":
		return fmt.Errorf("%s has no workspace: it was started in %s and the client offered no roots; restart it with --workspace DIR", program, w.refused)
	}
	return nil
}

// retarget makes dir the workspace unless one was chosen explicitly or a
// root was already taken: every entry whose config depends on the workspace
// is updated (fslocal restarts, and toolfs with it).
func (w *workspace) retarget(ctx context.Context, rt *runtime, c *common, env Env, dir string) error {
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
	dep, err := c.deploymentIn(env, dir)
	if err != nil {
		return err
	}
	for _, e := range dep.Enabled() {
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

func (w *workspace) isSettled() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.settled
}

// settle stops asking for roots; why says why they gave no workspace.
func (w *workspace) settle(why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settled, w.noRoot = true, why
}
