//go:build natsbus

package natsbus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Plugin is the `natsbus` plugin. It uses the fs service when present
// (for each target's real path).
var Plugin = host.Define[Config]("natsbus", apply, host.Defaults(DefaultConfig), host.Optional(fsapi.Key))

func init() { host.Register(Plugin) }

// bus is one activation of a natsbus entry: its connection, its embedded
// server when it has one, and its audit trail.
type bus struct {
	id    string
	cfg   Config
	log   *slog.Logger
	host  string     // this server's name in subjects and events
	codec wire.Codec // targets relative to the workspace's real path
	where string     // the server, for messages: a URL without its password, or the embedded server
	emb   *embedded  // nil unless embedded
	nc    *nats.Conn
	js    jetstream.JetStream
	trail *trail // nil without audit
	// live is cancelled when the connection drops and replaced when it
	// is up again: a request or publish in flight ends with the
	// connection, not at its timeout.
	mu   sync.Mutex
	live context.Context
	drop context.CancelFunc
	// streamFor is the connection (reconnect count + 1) for which the
	// audit stream was last checked; 0 makes the next publish check it.
	streamFor atomic.Uint64
	streamErr string // the last failure checkStream logged, "" when the stream is there (under mu)
	down      string // set when the entry is inert: why it does nothing
}

func apply(ctx context.Context, s *host.Scope, cfg Config) error {
	ws := realWorkspace(cfg.Workspace)
	b := &bus{id: s.Instance().ID(), cfg: cfg, log: s.Logger(), host: hostName(cfg.Host)}
	b.codec = wire.Codec{Workspace: ws, MaxArgumentBytes: cfg.MaxArgumentBytes,
		RealPath: func(t fsapi.Target) (string, bool) {
			if fs, ok := fsapi.Key.Get(s); ok {
				return fsapi.RealPath(fs, t)
			}
			return "", false
		}}
	if cfg.Audit != nil {
		tr, err := trailFor(s, cfg.Queue, b.log, &b.codec)
		if err != nil {
			return err
		}
		tr.attach(source(b.host, ws), b.publish)
		b.trail = tr
	} else {
		dropTrail(s.Instance(), "audit is off in the entry's config")
	}
	if err := b.start(ctx, s, ws); err != nil {
		return b.inert(s, err)
	}
	if b.trail != nil {
		if err := s.Go("natsbus audit", b.trail.run); err != nil {
			return err
		}
	}
	if _, err := wire.Join(s, wire.Entry{Intents: cfg.Guards, Guard: b.guard, State: b.State,
		Timeout: cfg.Timeout, OnFailure: cfg.OnFailure}); err != nil {
		return err
	}
	return nil
}

// start starts the embedded server when there is one and connects to
// NATS, waiting up to the timeout for the first connection: a server that
// cannot be reached yet is retried for the life of the entry (guards fail
// per onFailure, audit events wait meanwhile); one that refuses the
// credentials is an error.
func (b *bus) start(ctx context.Context, s *host.Scope, ws string) error {
	url := b.cfg.URL
	var opts []nats.Option
	if b.cfg.Embedded {
		dir, err := dataDir(b.cfg, ws)
		if err != nil {
			return err
		}
		if err := outside("dataDir", dir, ws); err != nil {
			return err
		}
		if b.emb, err = startEmbedded(dir, b.cfg.Listen, b.host, b.log); err != nil {
			return err
		}
		emb := b.emb
		if _, err := s.Effect("natsbus embedded server", emb.stop); err != nil {
			_ = emb.stop(context.WithoutCancel(ctx))
			return err
		}
		url, b.where = emb.srv.ClientURL(), "the embedded server (no port)"
		opts = append(opts, nats.InProcessServer(emb.srv))
		if emb.token != "" {
			opts = append(opts, nats.Token(emb.token))
			b.where = "the embedded server (listening on " + emb.addr + ")"
			b.log.Info("the embedded NATS server listens", "addr", emb.addr, "token", filepath.Join(emb.dir, "token"), "dataDir", emb.dir)
		}
	} else {
		b.where = redact(url)
		if c := b.cfg.Credentials; c != "" {
			if err := outside("credentials", c, ws); err != nil {
				return err
			}
			if err := checkCredentials(c); err != nil {
				return err
			}
			opts = append(opts, nats.UserCredentials(c))
		}
	}
	changed := make(chan struct{}, 1)
	b.live, b.drop = context.WithCancel(context.Background())
	nc, err := connect(url, b.where, b.host, b.log, func(up bool) {
		b.mu.Lock()
		switch {
		case !up:
			b.drop()
		case b.live.Err() != nil: // up again after a drop
			b.live, b.drop = context.WithCancel(context.Background())
		}
		b.mu.Unlock()
		if up {
			b.signalUp()
		}
		select {
		case changed <- struct{}{}:
		default:
		}
	}, opts...)
	if err != nil {
		return fmt.Errorf("%s: %w", b.where, err)
	}
	b.nc = nc
	if _, err := s.Effect("natsbus connection", func(context.Context) error { nc.Close(); return nil }); err != nil {
		nc.Close()
		return err
	}
	if b.js, err = jetstream.New(nc); err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	switch st := waitConnected(ctx, nc, changed, b.cfg.Timeout); st {
	case nats.CONNECTED:
		if b.cfg.Audit != nil {
			sctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
			err := b.checkStream(sctx, nc.Stats().Reconnects+1)
			cancel()
			var absent *absentStream
			if errors.As(err, &absent) && b.cfg.OnFailure == wire.Block {
				return err // under allow the entry runs, and `dshhost plugins` says it
			}
		}
	case nats.CLOSED:
		return fmt.Errorf("%s refused the connection: %v", b.where, nc.LastError())
	default:
		cause := "no connection within " + b.cfg.Timeout.String()
		if err := nc.LastError(); err != nil {
			cause = err.Error()
		}
		b.log.Warn("NATS cannot be reached yet; the entry keeps trying (guards get onFailure, audit events wait)",
			"server", b.where, "cause", cause, "onFailure", string(b.cfg.OnFailure))
	}
	return nil
}

// whileConnected returns ctx bounded by d and ended, too, when the
// connection drops.
func (b *bus) whileConnected(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	b.mu.Lock()
	live := b.live
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, d)
	stop := context.AfterFunc(live, cancel)
	return ctx, func() { stop(); cancel() }
}

// signalUp tells the trail that the connection is (again) up.
func (b *bus) signalUp() {
	if b.trail != nil {
		b.trail.wake()
	}
}

// inert handles an entry that cannot start (its data directory, its
// credentials, a refused connection): under block the error fails the
// entry (boot exits 2, a reload is refused); under allow the entry is
// ACTIVE with a warning and asks and publishes nothing.
func (b *bus) inert(s *host.Scope, err error) error {
	if b.cfg.OnFailure == wire.Block {
		return err
	}
	b.log.Warn("natsbus is not running; its entry is ACTIVE without guards or audit (onFailure: allow)", "err", err)
	b.down = "failed: " + err.Error()
	dropTrail(s.Instance(), "the entry is not running: "+err.Error())
	b.trail = nil
	_, jerr := wire.Join(s, wire.Entry{State: b.State})
	return jerr
}

// State reports the entry for `dshhost plugins`: the connection, and the
// audit events waiting and dropped.
func (b *bus) State() wire.State {
	if b.down != "" {
		return wire.State{Process: b.down}
	}
	var st string
	switch b.nc.Status() {
	case nats.CONNECTED:
		st = "connected to " + b.where
	case nats.CLOSED:
		st = fmt.Sprintf("closed: %v", b.nc.LastError())
	default:
		st = "reconnecting to " + b.where
		if err := b.nc.LastError(); err != nil {
			st += ": " + err.Error()
		}
	}
	var dropped uint64
	b.mu.Lock()
	if b.streamErr != "" {
		st += "; " + b.streamErr
	}
	b.mu.Unlock()
	if b.trail != nil {
		if n := b.trail.waiting(); n > 0 {
			st += fmt.Sprintf(", %d audit events waiting", n)
		}
		dropped = b.trail.q.Dropped()
	}
	return wire.State{Process: st, Dropped: dropped}
}

// realWorkspace returns the workspace's real path (the working directory
// when unset): the base of rel.
func realWorkspace(ws string) string {
	if ws == "" {
		ws, _ = os.Getwd()
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	if abs, err := filepath.Abs(ws); err == nil {
		ws = abs
	}
	return filepath.Clean(ws)
}

// waitConnected waits up to d for nc's first connection and returns its
// status then: CONNECTED, CLOSED (refused), or still trying. changed is
// signalled on every connect, reconnect and close.
func waitConnected(ctx context.Context, nc *nats.Conn, changed <-chan struct{}, d time.Duration) nats.Status {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		if st := nc.Status(); st == nats.CONNECTED || st == nats.CLOSED {
			return st
		}
		select {
		case <-ctx.Done():
			return nc.Status()
		case <-t.C:
			return nc.Status()
		case <-changed:
		}
	}
}

// errNotConnected is the cause of a request or publish made while the
// connection is down.
var errNotConnected = errors.New("not connected")
