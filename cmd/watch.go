package cmd

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/dsh-go/dsh/config"
	mcpplugin "github.com/dsh-go/dsh/plugins/mcp"
)

// reloadQuiet is how long a config file must stay unchanged before a
// reload runs: editors write a file in several steps (truncate, write,
// rename over), and a burst of them is one reload (issue 13: about 200 ms).
const reloadQuiet = 200 * time.Millisecond

// watchFile calls changed once the file at path has changed and then stayed
// quiet for quiet: a burst of events is one call, and calls never overlap
// (they run one at a time on the watcher's goroutine; events during a call
// start a new quiet period). It watches the file's directory, not the file,
// so an editor replacing the file by a rename is seen as well as a write in
// place. The file is stat'ed first: a missing file or directory is an error
// here rather than a watch that never fires. watchFile returns once the
// watch is set up; it stops when ctx ends or stop is called, and stop
// returns once a call of changed in progress has returned.
func watchFile(ctx context.Context, path string, quiet time.Duration, log *slog.Logger, changed func()) (stop func(), err error) {
	path, err = filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("cannot watch the config file: %w", err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("cannot watch the config file: %w", err)
	}
	if err := w.Add(filepath.Dir(path)); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("cannot watch the config file's directory: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer w.Close()
		timer := time.NewTimer(quiet)
		timer.Stop()
		defer timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Clean(ev.Name) == path && ev.Op != fsnotify.Chmod {
					timer.Reset(quiet)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				log.Warn("watching the config file", "file", path, "err", err)
				timer.Reset(quiet) // events may have been lost: reload to be sure
			case <-timer.C:
				changed()
			}
		}
	}()
	return func() { cancel(); <-done }, nil
}

// watchDeployment makes serve reload its deployment whenever the --config
// file changes (issue 13). Each reload loads the file again through the same
// layers as at start (env, flags, and the workspace: the one chosen by flag,
// env or file, else the one serve settled on), under the workspace's lock,
// so that it never interleaves with adopting the client's root. after, if
// set, receives each reload's report (tests). stop ends the watch, waiting
// for a reload in progress: call it before shutting the runtime down.
func watchDeployment(ctx context.Context, env Env, c *common, ws *workspace, rt *runtime, srv *mcpplugin.Server, log *slog.Logger, after func(reloadReport)) (stop func(), err error) {
	explicit := rt.dep.WorkspaceFrom != "default"
	r := &reloader{rt: rt, log: log, hold: srv.Hold,
		load: func() (*config.Deployment, error) {
			if explicit {
				return c.deployment(env)
			}
			return c.deploymentIn(env, ws.dir) // ws.mu is held
		}}
	source := rt.dep.Source
	return watchFile(ctx, source, reloadQuiet, log, func() {
		ws.mu.Lock()
		rep := r.reload(ctx, source)
		if explicit && rep.Err == nil {
			ws.dir = rt.dep.Workspace
		}
		ws.mu.Unlock()
		if after != nil {
			after(rep)
		}
	})
}
