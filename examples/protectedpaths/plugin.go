package protectedpaths

import (
	"context"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Plugin is the `protectedpaths` plugin. It injects the fs service, so it
// waits in PENDING until a provider is ACTIVE and restarts with the next
// provider: its patterns are compiled against the provider's cwd and real
// locations, which a new provider may change. Each activation prepends one
// guard on each of fs/write-intent, fs/edit-intent and fs/remove-intent
// (a delete, or a move's source; a move's destination is a write).
var Plugin = host.Define[Config]("protectedpaths", apply, host.Inject(fsapi.Key))

func init() { host.Register(Plugin) }

func apply(ctx context.Context, s *host.Scope, cfg Config) error {
	g := &guard{fs: fsapi.Key.Must(s)}
	for _, p := range cfg.Paths {
		r, err := compile(ctx, g.fs, p)
		if err != nil {
			return err
		}
		g.rules = append(g.rules, r)
	}
	if _, err := events.FSWriteIntent.On(s, g.writeIntent, host.Prepend()); err != nil {
		return err
	}
	if _, err := events.FSEditIntent.On(s, g.editIntent, host.Prepend()); err != nil {
		return err
	}
	_, err := events.FSRemoveIntent.On(s, g.removeIntent, host.Prepend())
	return err
}
