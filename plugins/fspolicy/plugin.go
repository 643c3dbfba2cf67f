package fspolicy

import (
	"context"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
)

// Defaults of the bounds (conversations.md §2).
const (
	// DefaultMaxObservations bounds the observations kept per conversation.
	DefaultMaxObservations = 10000
	// DefaultMaxObservationsTotal bounds the observations kept in all.
	DefaultMaxObservationsTotal = 1000000
)

// Config is the fspolicy plugin's config (docs/configuration.md
// "fspolicy"): the bounds of its state. Past MaxObservations a
// conversation's least recently recorded observations are forgotten; past
// MaxObservationsTotal the least recently active conversation is. A
// forgotten file needs a fresh read before it is overwritten or edited
// (FS_NOT_OBSERVED).
type Config struct {
	MaxObservations      int `json:"maxObservations"`
	MaxObservationsTotal int `json:"maxObservationsTotal"`
}

// Validate checks the bounds: positive integers, the total no smaller than
// the per-conversation bound.
func (c Config) Validate() error {
	var issues []host.ConfigIssue
	if c.MaxObservations < 1 {
		issues = append(issues, host.ConfigIssue{Path: "maxObservations", Problem: "fspolicy: maxObservations must be a positive integer"})
	}
	switch {
	case c.MaxObservationsTotal < 1:
		issues = append(issues, host.ConfigIssue{Path: "maxObservationsTotal", Problem: "fspolicy: maxObservationsTotal must be a positive integer"})
	case c.MaxObservations >= 1 && c.MaxObservationsTotal < c.MaxObservations:
		issues = append(issues, host.ConfigIssue{Path: "maxObservationsTotal", Problem: "fspolicy: maxObservationsTotal must be at least maxObservations"})
	}
	if len(issues) > 0 {
		return &host.ConfigError{Plugin: "fspolicy", Issues: issues}
	}
	return nil
}

func defaultConfig() Config {
	return Config{MaxObservations: DefaultMaxObservations, MaxObservationsTotal: DefaultMaxObservationsTotal}
}

// Plugin is the `fspolicy` plugin. Each activation starts with no
// observations and drops them all when it ends (contract §4 "Disposal"); a
// conversation's observations are dropped when conversation/closed names
// it.
var Plugin = host.Define[Config]("fspolicy", apply, host.Defaults(defaultConfig))

func apply(_ context.Context, s *host.Scope, cfg Config) error {
	p := newPolicy(cfg)
	if _, err := events.FSWriteIntent.On(s, p.writeIntent); err != nil {
		return err
	}
	if _, err := events.FSEditIntent.On(s, p.editIntent); err != nil {
		return err
	}
	if _, err := events.FSRemoveIntent.On(s, p.removeIntent); err != nil {
		return err
	}
	if _, err := events.FSObserved.On(s, p.observed); err != nil {
		return err
	}
	_, err := events.ConversationClosed.On(s, p.closed)
	return err
}

func init() { host.Register(Plugin) }
