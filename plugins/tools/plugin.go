package tools

import (
	"context"

	"github.com/dsh-go/dsh/host"
)

// Key is the service key of the tool registry ("tools"). Tool plugins
// declare host.Inject(tools.Key) and register through Key.Must(s).
var Key = host.NewKey[*Registry]("tools")

// Config is the tools plugin's config; it has no keys.
type Config struct{}

// Plugin is the `tools` plugin: it provides a fresh [Registry] under [Key]
// for each activation. dshhost always mounts it (it is infrastructure, not
// listed in deployments).
var Plugin = host.Define[Config]("tools", apply, host.Provides(Key))

func apply(_ context.Context, s *host.Scope, _ Config) error {
	_, err := Key.Provide(s, NewRegistry())
	return err
}

func init() { host.Register(Plugin) }
