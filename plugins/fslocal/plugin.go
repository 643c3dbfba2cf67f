package fslocal

import (
	"context"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Plugin is the `fslocal` plugin (contract §1): it requires nothing and
// provides the "fs" service ([fsapi.Key]) backed by a [Provider] built from
// its [Config] (defaults: HardLinks unset, which is "break" under
// confinement and "preserve" without [D9+], the process working directory
// as cwd, no confinement, EditMaxBytes [DefaultEditMaxBytes]). It enforces
// the host's protected files ([fsapi.ProtectedKey], [Provider.Refuse]) on
// every tool it serves, whatever else is mounted. A load error of [New] (a root that is
// not a directory, a cwd outside the root) fails the instance. Disposing the
// instance withdraws "fs" and closes the provider. A second provider of "fs"
// in one host fails with host.ErrDuplicateService and leaves the first
// unaffected.
var Plugin = host.Define[Config]("fslocal", apply,
	host.Provides(fsapi.Key),
	host.Defaults(DefaultConfig),
)

func init() { host.Register(Plugin) }

// apply builds the provider, gives it the host's protected set (when the
// host has one: fsapi.ProtectedKey), registers its close, and provides it.
func apply(_ context.Context, s *host.Scope, cfg Config) error {
	p, err := New(cfg)
	if err != nil {
		return err
	}
	p.protected, _ = fsapi.ProtectedKey.Get(s)
	if _, err := s.Effect("close", func(context.Context) error { return p.Close() }); err != nil {
		p.Close()
		return err
	}
	_, err = fsapi.Key.Provide(s, p)
	return err
}
