package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/frontend"
	"github.com/dsh-go/dsh/plugins/tools"
)

// infrastructure reports whether entry e is one a reload never disposes:
// the tool registry and the front end, the entry whose plugin provides
// "frontend" (restarting either would cut the client's tools or its
// session). A config change reaches them through Instance.Update, in place
// when they accept it (host.OnUpdate).
func infrastructure(e config.Entry) bool {
	return e.Name == tools.Plugin.Name() || frontend.Provides(e.Plugin)
}

// sameKeys reports whether two configs of one plugin have the same keys: the
// same `dshhost config` form (fields no file sets are not compared).
func sameKeys(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// reloadReport says what one reload did, by entry id, in list order.
type reloadReport struct {
	// Kept are the entries left running untouched (same name, config and
	// disabled flag), or left disabled.
	Kept []string
	// Updated took their new config in place (host.OnUpdate).
	Updated []string
	// Restarted were swapped: unloaded, then started with the new config
	// (or the new plugin, when the name changed).
	Restarted []string
	// Started were added or enabled; Stopped removed or disabled.
	Started, Stopped []string
	// Err is why the reload was refused (nothing changed) or which entries
	// failed to start (each restored to its previous config); nil when the
	// whole candidate was applied.
	Err error
}

// String summarises the report for logs: `kept [a b] updated [c] ...`,
// omitting empty groups; "nothing changed" when every entry was kept.
func (r reloadReport) String() string {
	var parts []string
	for _, g := range []struct {
		name string
		ids  []string
	}{{"updated", r.Updated}, {"restarted", r.Restarted}, {"started", r.Started}, {"stopped", r.Stopped}} {
		if len(g.ids) > 0 {
			parts = append(parts, g.name+" ["+strings.Join(g.ids, " ")+"]")
		}
	}
	if len(parts) == 0 {
		return "nothing changed"
	}
	return strings.Join(parts, ", ")
}

// reloader applies a changed deployment to a running runtime as a
// transaction (host §3.7 "Reload"): the candidate is loaded
// fresh through every layer (file, env, flags, workspace) and validated
// whole before anything is touched; then entries are reconciled by id. The
// caller serialises reloads (serve: one watcher goroutine, under the
// workspace lock).
type reloader struct {
	rt *runtime
	// load builds the candidate deployment exactly as at start.
	load func() (*config.Deployment, error)
	// hold, if set, defers tools/list_changed until its release (one
	// coalesced notification per reload).
	hold func() (release func())
	// frontEnd, if set, returns the config of a candidate's front end
	// entry as serve mounts it (its mount applied).
	frontEnd func(config.Entry) any
	// announce, if set, tells the front end's clients the reload's result
	// (their log messages: conversations.md §4.3).
	announce func(level, message string)
	log      *slog.Logger
}

// reload loads the candidate from source and applies it. On a load or
// validation error nothing changes: the error is logged at ERROR with the
// file and key paths and emitted as config/reload-failed. An entry whose new
// config or plugin fails to start is restored to its previous one, and that
// failure is logged and emitted the same way.
func (r *reloader) reload(ctx context.Context, source string) reloadReport {
	ctx = context.WithoutCancel(ctx)
	if err := checkComplete(source); err != nil {
		r.failed(ctx, source, "config reload refused: "+err.Error()+"; still serving the last good deployment", err)
		return reloadReport{Err: err}
	}
	dep, err := r.load()
	if err == nil && len(dep.Entries) == 0 {
		err = &incompleteFile{file: source, why: "has no plugin entry"}
		r.failed(ctx, source, "config reload refused: "+err.Error()+"; still serving the last good deployment", err)
		return reloadReport{Err: err}
	}
	if err == nil {
		err = checkInfrastructure(dep)
	}
	if running, ferr := frontEndOf(r.rt.dep); err == nil && ferr == nil {
		// The front end serves the clients of this very process: a reload
		// never takes it away or swaps it.
		if next, nerr := frontEndOf(dep); nerr != nil || next.ID != running.ID || next.Plugin != running.Plugin {
			err = fmt.Errorf("the front end %q cannot be removed, renamed or replaced by a reload (restart serve to change it)", running.ID)
		}
	}
	if err != nil {
		r.failed(ctx, source, "config reload refused; still serving the last good deployment", err)
		return reloadReport{Err: err}
	}
	if r.hold != nil {
		release := r.hold()
		defer release()
	}
	if replaced := r.replaced(dep); len(replaced) > 0 && r.rt.reg != nil {
		release := r.rt.reg.HoldSwap(replaced...)
		defer release()
		r.awaitCalls(ctx, replaced)
	}
	rep, applied := r.reconcile(ctx, dep)
	r.rt.dep = applied
	if err := r.rt.protectDeployment(); err != nil {
		r.log.Error("config reload: the deployment file could not be protected again", "file", source, "err", err)
	}
	if rep.Err != nil {
		r.failed(ctx, source, "config reload: some entries kept their previous config", rep.Err)
	}
	if err := r.rt.host.Audit(); err != nil {
		r.log.Warn("after the config reload, not every plugin is active", "err", err)
	}
	r.log.Info("config reloaded", "file", source, "changes", rep.String())
	if r.announce != nil && rep.Err == nil {
		r.announce("info", "config reloaded: "+rep.String())
	}
	return rep
}

// defaultReloadCallWait bounds a reload's wait for calls in flight when no
// front end says its call timeout (the MCP front end's default).
const defaultReloadCallWait = 5 * time.Minute

// replaced returns the ids of the running instances that applying dep may
// unload: each non-infrastructure entry that dep removes, disables or
// changes (its name or its config; an in-place update cannot be known
// before it is offered), and the instances that depend on it (host §1.2),
// each once.
func (r *reloader) replaced(dep *config.Deployment) []string {
	var ids []string
	add := func(id string) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, o := range r.rt.dep.Entries {
		inst := r.rt.host.Instance(o.ID)
		if infrastructure(o) || o.Disabled || inst == nil {
			continue
		}
		if e, ok := dep.Entry(o.ID); ok && !e.Disabled && e.Name == o.Name && reflect.DeepEqual(o.Config, e.Config) {
			continue
		}
		add(o.ID)
		for _, d := range inst.Dependents() {
			add(d)
		}
	}
	return ids
}

// awaitCalls waits until no call of the tools of the instances ids is in
// flight, up to the front end's call timeout (the calls are cancelled by
// then), so that a reload never aborts a call to apply a change. It logs
// `config reload: waiting for <n> calls of <ids>` when there are some, and
// how the wait ended.
func (r *reloader) awaitCalls(ctx context.Context, ids []string) {
	reg := r.rt.reg
	var busy []string
	n := 0
	for _, id := range ids {
		if k := reg.Running(id); k > 0 {
			busy, n = append(busy, id), n+k
		}
	}
	if n == 0 {
		return
	}
	limit := defaultReloadCallWait
	if srv, ok := frontend.Key.Get(r.rt.host.Root()); ok {
		limit = srv.CallTimeout()
	}
	r.log.Info(fmt.Sprintf("config reload: waiting for %d calls of %s", n, strings.Join(busy, " ")), "at most", limit)
	wctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := reg.AwaitIdle(wctx, busy...); err != nil {
		r.log.Warn(fmt.Sprintf("config reload: %d calls of %s still running after the call timeout; applying the change", reg.Running(busy...), strings.Join(busy, " ")), "waited", limit)
		return
	}
	r.log.Info("config reload: the calls ended; applying the change", "entries", strings.Join(busy, " "))
}

// incompleteFile is a reload's refusal of a deployment file that looks
// cut short: `<file> is empty`, `<file> does not end with a newline (a
// partial write?)`, `<file> has no plugin entry`.
type incompleteFile struct{ file, why string }

func (e *incompleteFile) Error() string { return e.file + " " + e.why }

// checkComplete refuses a deployment file that an interrupted writer may
// have left: empty (nothing but white space), or whose last byte is not a
// newline (a truncate-then-write caught between the two, a copy cut short
// by ENOSPC). A read error is left to the load, which reports it.
func checkComplete(source string) error {
	data, err := config.ReadFile(source)
	switch {
	case err != nil:
		return nil
	case len(bytes.TrimSpace(data)) == 0:
		return &incompleteFile{file: source, why: "is empty"}
	case data[len(data)-1] != '\n':
		return &incompleteFile{file: source, why: "does not end with a newline (a partial write?)"}
	}
	return nil
}

// checkInfrastructure refuses a candidate that disables the tool registry
// or the MCP front end.
func checkInfrastructure(dep *config.Deployment) error {
	for _, e := range dep.Entries {
		if infrastructure(e) && e.Disabled {
			return fmt.Errorf("plugin entry %q: %s is infrastructure and cannot be disabled", e.ID, e.Name)
		}
	}
	return nil
}

// failed logs a reload's failure msg (at ERROR, with the file and err),
// tells the clients (msg and err; msg alone when it already says err, as
// an incompleteFile's does) and emits config/reload-failed.
func (r *reloader) failed(ctx context.Context, source, msg string, err error) {
	r.log.Error(msg, "file", source, "err", err)
	if r.announce != nil {
		if _, whole := err.(*incompleteFile); whole {
			r.announce("error", msg)
		} else {
			r.announce("error", msg+": "+err.Error())
		}
	}
	if eerr := events.ConfigReloadFailed.Emit(ctx, r.rt.host.Root(), events.ReloadFailure{Source: source, Err: err}); eerr != nil {
		r.log.Warn("a config/reload-failed listener failed", "err", eerr)
	}
}

// reconcile applies dep entry by entry and returns what it did and the
// deployment now running: dep, except that an entry that failed to start
// keeps its previous form (or is left out, when it was new).
func (r *reloader) reconcile(ctx context.Context, dep *config.Deployment) (reloadReport, *config.Deployment) {
	h, old := r.rt.host, r.rt.dep
	var rep reloadReport
	var errs []error
	applied := *dep
	applied.Entries = nil

	// Removed entries go first, newest first, so that what replaces them
	// never meets them (a provider moving to a new id, for instance).
	for i := len(old.Entries) - 1; i >= 0; i-- {
		o := old.Entries[i]
		if _, still := dep.Entry(o.ID); still || infrastructure(o) {
			continue
		}
		if !o.Disabled {
			r.dispose(ctx, o.ID)
			rep.Stopped = append(rep.Stopped, o.ID)
		}
	}
	for _, e := range dep.Entries {
		o, existed := old.Entry(e.ID)
		inst := h.Instance(e.ID)
		switch {
		case frontend.Provides(e.Plugin) && inst != nil:
			// serve mounted it with its flags and mount over this entry.
			// Every reload offers it the candidate (so it reads its token
			// files again); it applies what it can in place and never
			// restarts, which would cut its clients (frontend.Server).
			cfg := e.Config
			if r.frontEnd != nil {
				cfg = r.frontEnd(e)
			}
			same := sameKeys(inst.Config(), cfg)
			if err := inst.Update(ctx, cfg); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", e.ID, err))
				continue
			}
			if same {
				rep.Kept = append(rep.Kept, e.ID)
			} else {
				rep.Updated = append(rep.Updated, e.ID)
			}
		case existed && o.Name == e.Name && o.Disabled == e.Disabled && reflect.DeepEqual(o.Config, e.Config):
			rep.Kept = append(rep.Kept, e.ID)
		case existed && o.Disabled && e.Disabled:
			rep.Kept = append(rep.Kept, e.ID)
		case !existed && infrastructure(e) && inst != nil:
			rep.Kept = append(rep.Kept, e.ID) // mounted implicitly at boot, now listed
		case e.Disabled:
			r.dispose(ctx, e.ID)
			rep.Stopped = append(rep.Stopped, e.ID)
		case !existed || o.Disabled || inst == nil:
			if err := r.mount(ctx, e); err != nil {
				errs = append(errs, err)
				if existed {
					applied.Entries = append(applied.Entries, o)
				}
				continue
			}
			rep.Started = append(rep.Started, e.ID)
		case o.Name != e.Name:
			r.dispose(ctx, e.ID)
			if err := r.mount(ctx, e); err != nil {
				errs = append(errs, err)
				if rerr := r.mount(ctx, o); rerr != nil {
					errs = append(errs, fmt.Errorf("restoring %q: %w", o.ID, rerr))
				}
				applied.Entries = append(applied.Entries, o)
				continue
			}
			rep.Restarted = append(rep.Restarted, e.ID)
		default:
			before := inst.Scope()
			if err := r.update(ctx, inst, e, o); err != nil {
				errs = append(errs, err)
				applied.Entries = append(applied.Entries, o)
				continue
			}
			if before != nil && inst.Scope() == before {
				rep.Updated = append(rep.Updated, e.ID)
			} else {
				rep.Restarted = append(rep.Restarted, e.ID)
			}
		}
		applied.Entries = append(applied.Entries, e)
	}
	rep.Err = errors.Join(errs...)
	return rep, &applied
}

// mount starts entry e; an entry that ends FAILED is disposed again and its
// error returned, so a failed start leaves nothing behind.
func (r *reloader) mount(ctx context.Context, e config.Entry) error {
	inst, err := r.rt.host.Plugin(ctx, e.Plugin, e.Config, host.ID(e.ID))
	if err != nil {
		return fmt.Errorf("plugin entry %q: %w", e.ID, err)
	}
	if inst.State() == host.StateFailed {
		err := inst.Err()
		_ = inst.Dispose(ctx)
		return fmt.Errorf("plugin entry %q: %w", e.ID, err)
	}
	return nil
}

// update gives inst the new config of e (in place or by restart); when it
// ends FAILED, inst gets o's config back and the failure is returned.
func (r *reloader) update(ctx context.Context, inst *host.Instance, e, o config.Entry) error {
	err := inst.Update(ctx, e.Config)
	if err == nil && inst.State() == host.StateFailed {
		err = inst.Err()
	}
	if err == nil {
		return nil
	}
	if rerr := inst.Update(ctx, o.Config); rerr != nil {
		err = errors.Join(err, fmt.Errorf("restoring its previous config: %w", rerr))
	}
	return fmt.Errorf("plugin entry %q: %w", e.ID, err)
}

// dispose ends the instance of entry id, if running; its calls in flight
// finish first, within the dispose timeout. Disposer failures are logged:
// the entry is gone either way.
func (r *reloader) dispose(ctx context.Context, id string) {
	if inst := r.rt.host.Instance(id); inst != nil {
		if err := inst.Dispose(ctx); err != nil {
			r.log.Warn("disposing a plugin during a config reload", "instance", id, "err", err)
		}
	}
}
