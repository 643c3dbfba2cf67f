package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Plugin is the `exec` plugin. It injects the tool registry (for the tools
// a child declares) and uses the fs service when present (for each
// target's real path). The files it runs (command[0] when it is a path,
// and the script arguments) are protected deployment files
// (fsapi.ProtectConfig) while the entry is mounted; the child itself runs
// outside the fs provider, so its own tools are not bound by them.
var Plugin = host.Define[Config]("exec", apply, host.Defaults(DefaultConfig),
	host.Inject(tools.Key), host.Optional(fsapi.Key))

func init() { host.Register(Plugin) }

// entry is one activation of an exec entry: its config, its codec, its
// notification queue and the child running now.
type entry struct {
	id    string
	s     *host.Scope
	cfg   Config
	log   *slog.Logger
	codec wire.Codec
	q     *queue

	mu       sync.Mutex
	cur      *proc  // the running child; nil while it is down
	state    string // what plugins shows while cur is nil
	lastExit string // why the last run ended
	restarts int
	retired  bool // no restarts: the entry went inert
}

func apply(ctx context.Context, s *host.Scope, cfg Config) error {
	// The code the server runs is a deployment file: no tool changes it.
	if _, err := fsapi.Protect(s, fsapi.ProtectConfig, cfg.scripts()...); err != nil {
		return err
	}
	e := &entry{id: s.Instance().ID(), s: s, cfg: cfg, log: s.Logger(), q: newQueue(cfg.Queue), state: "starting"}
	e.codec = wire.Codec{Workspace: realWorkspace(cfg.Workspace), MaxArgumentBytes: cfg.MaxArgumentBytes,
		RealPath: func(t fsapi.Target) (string, bool) {
			if fs, ok := fsapi.Key.Get(s); ok {
				return fsapi.RealPath(fs, t)
			}
			return "", false
		}}
	p, init, err := e.launch(ctx)
	if err != nil {
		return e.inert(err)
	}
	// The supervisor goes first, so that it is torn down last: the tools
	// drain and the listeners go while the child still answers.
	if err := s.Go("exec "+e.id, func(ctx context.Context) { e.supervise(ctx, p, init) }); err != nil {
		p.kill()
		return err
	}
	undo, err := e.register(init)
	if err != nil {
		for i := len(undo) - 1; i >= 0; i-- {
			_ = undo[i](context.WithoutCancel(ctx))
		}
		e.mu.Lock()
		e.retired = true // the supervisor stops the child and does not restart it
		e.mu.Unlock()
		p.kill()
		return e.inert(err)
	}
	return nil
}

// inert handles a child that did not start, did not initialize or declared
// what cannot be registered (§3): under block the error fails the entry
// (FAILED; boot exits 2, a reload is refused); under allow the entry is
// ACTIVE with a warning, no listeners and no tools.
func (e *entry) inert(err error) error {
	if e.cfg.OnFailure == wire.Block {
		return err
	}
	e.log.Warn("the plugin is not running; its entry is ACTIVE without listeners (onFailure: allow)", "err", err)
	cause := err.Error()
	var u *wire.Unavailable
	if errors.As(err, &u) {
		cause = u.Cause
	}
	e.setDown("failed: "+cause, cause)
	_, jerr := wire.Join(e.s, wire.Entry{State: e.State})
	return jerr
}

// realWorkspace returns the workspace's real path, the base of rel.
func realWorkspace(ws string) string {
	if ws == "" {
		return ""
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	return filepath.Clean(ws)
}

// register makes what the child declared in its first initialize: its
// tools, its guards in the host's wire list, its notification listeners.
// They stay across restarts. It returns the disposers of what it made, for
// a failure half-way.
func (e *entry) register(init initResult) ([]host.Disposer, error) {
	var undo []host.Disposer
	reg := tools.Key.Must(e.s)
	for _, d := range init.Tools {
		if _, taken := reg.Lookup(d.Name); taken {
			return undo, fmt.Errorf("exec %q: tool %q is already registered", e.id, d.Name)
		}
		u, err := reg.Register(e.s, e.tool(d))
		if err != nil {
			return undo, fmt.Errorf("exec %q: %w", e.id, err)
		}
		undo = append(undo, u)
	}
	for _, ev := range init.Events {
		if !slices.Contains(intents, ev) && !slices.Contains(notifications, ev) {
			e.log.Warn("the plugin declared an event this server does not send; ignored", "event", ev)
		}
	}
	var guards []string
	for _, ev := range intents {
		if init.wants(ev) {
			guards = append(guards, ev)
		}
	}
	u, err := wire.Join(e.s, wire.Entry{Intents: guards, Guard: e.intent, State: e.State})
	if err != nil {
		return undo, err
	}
	undo = append(undo, u)
	if init.wants(events.FSObserved.Name()) {
		u, err := events.FSObserved.On(e.s, e.observed)
		if err != nil {
			return undo, err
		}
		undo = append(undo, u)
	}
	if init.wants(events.ConversationClosed.Name()) {
		u, err := events.ConversationClosed.On(e.s, e.closed)
		if err != nil {
			return undo, err
		}
		undo = append(undo, u)
	}
	return undo, nil
}

// launch starts a child and exchanges initialize within the timeout; on
// success the child is the entry's current one.
func (e *entry) launch(ctx context.Context) (*proc, initResult, error) {
	p, err := startProc(e.cfg, e.log, e.q, e.encode)
	if err != nil {
		return nil, initResult{}, &wire.Unavailable{Plugin: e.id, Cause: err.Error()}
	}
	ictx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	init, err := e.initialize(ictx, p)
	if err != nil {
		p.kill()
		wait(p.done, 2*stopGrace)
		return nil, initResult{}, &wire.Unavailable{Plugin: e.id, Cause: err.Error()}
	}
	p.markReady()
	e.mu.Lock()
	e.cur = p
	e.mu.Unlock()
	return p, init, nil
}

func wait(ch <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

// cause words err, the failure of a request to the current child, as a §2
// cause: `no answer within 2s`, `the process exited: ...`, a broken
// answer, the plugin's error object. what names the request in a timeout
// ("" for an intent).
func (e *entry) cause(ctx context.Context, err error, what string) string {
	var run *errRun
	var rpc *rpcError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (ctx.Err() != nil && errors.Is(err, ctx.Err())):
		if what != "" {
			return fmt.Sprintf("no answer to %s within %s", what, e.cfg.Timeout)
		}
		return fmt.Sprintf("no answer within %s", e.cfg.Timeout)
	case errors.As(err, &run):
		return run.cause
	case errors.As(err, &rpc):
		return rpc.Error()
	}
	return err.Error()
}

// current returns the running child, or nil and why there is none.
func (e *entry) current() (*proc, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cur != nil {
		return e.cur, ""
	}
	cause := "the process is not running"
	if e.lastExit != "" {
		cause += " (" + e.lastExit + ")"
	}
	return nil, cause
}

// setDown records that no child runs: state is what plugins shows, exit
// why the last run ended ("" to keep the last).
func (e *entry) setDown(state, exit string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cur, e.state = nil, state
	if exit != "" {
		e.lastExit = exit
	}
}

// State reports the entry for `dshhost plugins`.
func (e *entry) State() wire.State {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.state
	if e.cur != nil {
		st = fmt.Sprintf("running (pid %d)", e.cur.pid)
		if e.restarts > 0 {
			st = fmt.Sprintf("running (pid %d, %d restarts)", e.cur.pid, e.restarts)
		}
	}
	return wire.State{Process: st, Dropped: e.q.Dropped()}
}

// intent is the entry's guard (wire.Entry.Guard): it asks the child about
// event within the timeout and applies onFailure to a failure (§2).
func (e *entry) intent(ctx context.Context, event string, req events.IntentRequest) error {
	p, down := e.current()
	if p == nil {
		return e.cfg.OnFailure.Fail(e.log, e.id, event, down)
	}
	ictx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	raw, err := p.call(ictx, event, e.codec.Intent(req))
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // the call itself ended
		}
		return e.cfg.OnFailure.Fail(e.log, e.id, event, e.cause(ictx, err, ""))
	}
	deny, err := wire.ParseDecision(e.id, raw)
	if err != nil {
		return e.cfg.OnFailure.Fail(e.log, e.id, event, err.Error())
	}
	return deny
}

// observed queues an fs/observed notification; it never blocks or fails.
func (e *entry) observed(_ context.Context, o events.Observation) error {
	e.push(notification{method: events.FSObserved.Name(), payload: o})
	return nil
}

// closed queues a conversation/closed notification.
func (e *entry) closed(_ context.Context, id string) error {
	e.push(notification{method: events.ConversationClosed.Name(), payload: id})
	return nil
}

// push queues n; drops are logged at most once a minute.
func (e *entry) push(n notification) {
	if !e.q.Push(n) {
		return
	}
	if n, total, ok := e.q.DropsToReport(time.Now(), false); ok {
		e.log.Warn("the plugin's notification queue is full: the oldest were dropped", "dropped", n, "total", total, "queue", e.cfg.Queue)
	}
}

// cancelParams is the params of the cancel notification.
type cancelParams struct {
	Call string `json:"call"`
}

// encode writes a queued notification as its JSON-RPC line.
func (e *entry) encode(n notification) (json.RawMessage, error) {
	var params any
	switch v := n.payload.(type) {
	case events.Observation:
		params = e.codec.Observed(v)
	case string:
		if n.method == "cancel" {
			params = cancelParams{Call: v}
		} else {
			params = wire.Closed{Conversation: v}
		}
	}
	return wire.Marshal(request{JSONRPC: "2.0", Method: n.method, Params: params})
}
