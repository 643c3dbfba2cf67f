package fssandbox

import (
	"context"
	"os"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Plugin is the `fssandbox` plugin (sandbox.md §1). It requires no service:
// "fs" is optional and looked up at each check; "tools" is used through a
// With sub-plugin that registers sandbox_mode while a registry exists and
// sessionSwitch is true. It provides no service. Each activation starts
// with no per-conversation modes.
var Plugin = host.Define[Config]("fssandbox", apply,
	host.Optional(fsapi.Key, tools.Key),
	host.Defaults(defaultConfig))

// apply checks that the roots exist (before registering anything), then
// registers the two prepended guards, the conversation/closed listener and, with
// sessionSwitch, the tool's sub-plugin.
func apply(ctx context.Context, s *host.Scope, cfg Config) error {
	base, err := os.Getwd()
	if err != nil {
		return err
	}
	rs, err := buildRoots(cfg, base)
	if err != nil {
		return err
	}
	b := &sandbox{scope: s, mode: cfg.Mode, roots: rs, sessionSwitch: cfg.SessionSwitch, modes: map[string]Mode{}}
	if _, err := events.FSWriteIntent.On(s, b.writeIntent, host.Prepend()); err != nil {
		return err
	}
	if _, err := events.FSEditIntent.On(s, b.editIntent, host.Prepend()); err != nil {
		return err
	}
	if _, err := events.FSRemoveIntent.On(s, b.removeIntent, host.Prepend()); err != nil {
		return err
	}
	if _, err := events.ConversationClosed.On(s, b.closed); err != nil {
		return err
	}
	if cfg.SessionSwitch {
		if _, err := s.With(ctx, "fssandbox/sandbox_mode", []host.ServiceKey{tools.Key}, b.register); err != nil {
			return err
		}
	}
	return nil
}

func init() { host.Register(Plugin) }
