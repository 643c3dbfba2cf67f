package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/plugins/frontend"
)

// reloadQuiet is how long a config file must stay unchanged before a
// reload runs: editors write a file in several steps (truncate, write,
// rename over), and a burst of them within 200 ms is one reload.
const reloadQuiet = 200 * time.Millisecond

// reloadSettle is how long a changed config file's content must stay the
// same, across two reads, before a reload applies it: a writer caught
// between truncating the file and writing it (or writing it in pieces) is
// not applied. settleTries bounds the reads of a file that keeps changing;
// its next change starts over.
const (
	reloadSettle = 500 * time.Millisecond
	settleTries  = 10
)

// settle reads the file with read until two reads settle apart agree
// (content and error), and reports whether they did within settleTries
// reads; it returns false when ctx ends.
func settle(ctx context.Context, read func() ([]byte, error), settle time.Duration) bool {
	a, aerr := read()
	for range settleTries - 1 {
		t := time.NewTimer(settle)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		b, berr := read()
		if bytes.Equal(a, b) && (aerr == nil) == (berr == nil) {
			return true
		}
		a, aerr = b, berr
	}
	return false
}

// Re-establishing a lost watch (issue: a trial removed and recreated the
// config directory, and serve never reloaded again): the directory is tried
// again after watchRetryFirst, the wait doubling up to watchRetryMax, for
// watchRetryFor in all; then the watch gives up, logged at ERROR.
var (
	watchRetryFirst = 100 * time.Millisecond
	watchRetryMax   = 5 * time.Second
	watchRetryFor   = 10 * time.Minute
)

// watchStopWait bounds how long stopping a watch waits for a reload in
// progress: shutdown never hangs on a stuck reload beyond it.
var watchStopWait = 5 * time.Second

// watchFile calls changed once the file at path has changed and then stayed
// quiet for quiet: a burst of events is one call, and calls never overlap
// (they run one at a time on the watcher's goroutine; events during a call
// start a new quiet period). It watches the file's directory, not the file,
// so an editor replacing the file by a rename is seen as well as a write in
// place; when path is a symlink it also watches the directory of the
// resolved target, and a change of what path resolves to (a Kubernetes
// ConfigMap's `..data` swap) counts as a change. A watched directory that
// goes away (removed, renamed) is watched again once it is back, retried
// with backoff for watchRetryFor, and the file is then reloaded. The file
// is stat'ed first: a missing file or directory is an error here rather
// than a watch that never fires. watchFile returns once the watch is set
// up; it stops when ctx ends or stop is called, and stop returns once a
// call of changed in progress has returned, or after watchStopWait.
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
	fw := &fileWatch{path: path, w: w, log: log}
	fw.target = fw.resolve()
	if err := fw.ensure(); err != nil {
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
		retry := time.NewTimer(time.Hour)
		retry.Stop()
		defer retry.Stop()
		var lost time.Time // when a watched directory went missing; zero while all are watched
		gaveUp := false
		wait := watchRetryFirst
		// rewatch re-resolves the target and watches what is missing;
		// it reports whether the file may have changed.
		rewatch := func() bool {
			target := fw.resolve()
			moved := target != fw.target
			fw.target = target
			err := fw.ensure()
			switch {
			case err == nil && !lost.IsZero():
				log.Info("watching the config file's directory again", "file", path)
				lost, wait, gaveUp = time.Time{}, watchRetryFirst, false
				return true
			case err == nil:
				return moved
			case lost.IsZero():
				log.Warn("the config file's directory is gone; watching for it to come back", "file", path, "err", err, "for", watchRetryFor)
				lost = time.Now()
				retry.Reset(wait)
			case gaveUp:
			case time.Since(lost) >= watchRetryFor:
				gaveUp = true
				log.Error("stopped watching the config file: its directory did not come back; restart serve to watch it again", "file", path, "err", err, "after", watchRetryFor)
			default:
				wait = min(2*wait, watchRetryMax)
				retry.Reset(wait)
			}
			return moved
		}
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				name := filepath.Clean(ev.Name)
				hit := (name == path || name == fw.target) && ev.Op != fsnotify.Chmod
				if rewatch() || hit {
					timer.Reset(quiet)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				log.Warn("watching the config file", "file", path, "err", err)
				rewatch()
				timer.Reset(quiet) // events may have been lost: reload to be sure
			case <-retry.C:
				if rewatch() {
					timer.Reset(quiet)
				}
			case <-timer.C:
				changed()
			}
		}
	}()
	return func() {
		cancel()
		select {
		case <-done:
		case <-time.After(watchStopWait):
			log.Warn("a config reload is still running; shutting down without waiting for it", "file", path, "waited", watchStopWait)
		}
	}, nil
}

// fileWatch is the state of one watchFile: the file, what it resolves to
// and the watcher of their directories.
type fileWatch struct {
	path   string // absolute, as given
	target string // path with every symlink resolved; "" while it does not resolve
	w      *fsnotify.Watcher
	log    *slog.Logger
}

// resolve returns what path resolves to now, or "".
func (f *fileWatch) resolve() string {
	t, err := filepath.EvalSymlinks(f.path)
	if err != nil {
		return ""
	}
	return t
}

// ensure watches the directories of path and of its target (when that is
// another directory), and stops watching any other; an error names a
// directory that cannot be watched (gone).
func (f *fileWatch) ensure() error {
	want := []string{filepath.Dir(f.path)}
	if f.target != "" {
		td := filepath.Dir(f.target)
		a, aerr := os.Stat(want[0])
		b, berr := os.Stat(td)
		if aerr != nil || berr != nil || !os.SameFile(a, b) {
			want = append(want, td)
		}
	}
	have := f.w.WatchList()
	for _, d := range have {
		if !slices.Contains(want, d) {
			_ = f.w.Remove(d)
		}
	}
	var errs []error
	for _, d := range want {
		if slices.Contains(have, d) {
			continue
		}
		if err := f.w.Add(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// watchDeployment makes serve reload its deployment whenever the --config
// file changes. Each reload loads the file again through the same
// layers as at start (env, flags, and the workspace: the one chosen by flag,
// env or file, else the one serve settled on), under the workspace's change
// lock, so that it never interleaves with adopting the client's root; calls
// never take that lock, so none waits on a reload. after, if set, receives
// each reload's report (tests). stop ends the watch, waiting (bounded) for a
// reload in progress: call it before shutting the runtime down.
//
// hold defers the clients' tool-list notifications during a reload; mount
// is what the front end was mounted with, applied to each candidate's front
// end entry.
func watchDeployment(ctx context.Context, env Env, c *common, ws *workspace, rt *runtime, hold func() (release func()), mount frontend.Mount, log *slog.Logger, after func(reloadReport)) (stop func(), err error) {
	explicit := rt.dep.WorkspaceFrom != "default"
	r := &reloader{rt: rt, log: log, hold: hold,
		frontEnd: func(e config.Entry) any { return mounted(e.Config, mount) },
		announce: func(level, message string) {
			if srv, ok := frontend.Key.Get(rt.host.Root()); ok {
				srv.Announce(level, message)
			}
		},
		load: func() (*config.Deployment, error) {
			if explicit {
				return c.deployment(env)
			}
			return c.deploymentIn(env, ws.Dir()) // ws.change is held
		}}
	source := rt.dep.Source
	return watchFile(ctx, source, reloadQuiet, log, func() {
		if !settle(ctx, func() ([]byte, error) { return config.ReadFile(source) }, reloadSettle) {
			log.Info("the config file is still changing; it is reloaded once it stays the same", "file", source, "for", reloadSettle)
			return
		}
		ws.change.Lock()
		rep := r.reload(ctx, source)
		if explicit && rep.Err == nil {
			ws.mu.Lock()
			ws.dir = rt.dep.Workspace
			ws.mu.Unlock()
		}
		ws.change.Unlock()
		if rep.Err == nil && !c.watch && !rt.dep.Watch {
			log.Info("the file no longer sets watch: true; it is read at start only, so the watch goes on until serve restarts", "file", source)
		}
		if after != nil {
			after(rep)
		}
	})
}
