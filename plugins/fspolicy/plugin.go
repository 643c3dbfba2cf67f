package fspolicy

import (
	"context"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
)

// Config is the fspolicy plugin's config; it has no keys.
type Config struct{}

// Plugin is the `fspolicy` plugin. Each activation starts with no
// observations and drops them all when it ends (contract §4 "Disposal"); a
// session's observations are dropped when session/closed names it.
var Plugin = host.Define[Config]("fspolicy", apply)

func apply(_ context.Context, s *host.Scope, _ Config) error {
	p := newPolicy()
	if _, err := events.FSWriteIntent.On(s, p.writeIntent); err != nil {
		return err
	}
	if _, err := events.FSEditIntent.On(s, p.editIntent); err != nil {
		return err
	}
	if _, err := events.FSObserved.On(s, p.observed); err != nil {
		return err
	}
	_, err := events.SessionClosed.On(s, p.closed)
	return err
}

func init() { host.Register(Plugin) }
