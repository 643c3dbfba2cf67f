package auditlog

import (
	"context"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
)

// Plugin is the `auditlog` plugin. It injects nothing: it only listens to
// fs/observed, so it is ACTIVE from the start and records whatever the
// tools observe. Each activation owns one queue, one writer goroutine and
// one listener.
var Plugin = host.Define[Config]("auditlog", apply, host.Defaults(DefaultConfig))

func init() { host.Register(Plugin) }

func apply(_ context.Context, s *host.Scope, cfg Config) error {
	q := newQueue(cfg.Queue)
	w := &writer{path: cfg.Path, log: s.Logger()}
	// The goroutine is registered before the listener, so at disposal
	// (newest first) the listener goes first and the writer then flushes
	// everything that was accepted.
	if err := s.Go("auditlog writer", func(ctx context.Context) { w.run(ctx, q) }); err != nil {
		return err
	}
	_, err := events.FSObserved.On(s, q.observed)
	return err
}
