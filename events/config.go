package events

import "github.com/dsh-go/dsh/host"

// ReloadFailure is the payload of [ConfigReloadFailed].
type ReloadFailure struct {
	// Source is the deployment file the reload read (its path), e.g.
	// "/etc/dsh/dsh.yaml".
	Source string
	// Err is why the candidate deployment was refused: a *config.Error
	// listing each issue with its source and key path, or the error of an
	// entry that failed to start (and was restored to its previous config).
	Err error
}

// ConfigReloadFailed is `config/reload-failed` (issue 13): emitted by
// `dshhost serve --watch` when a changed deployment file cannot be applied.
// Parsing and validation failures leave every plugin as it was (the last good
// deployment keeps serving); an entry whose new config fails to start is
// restored to its previous config. Listeners observe; their failures are
// logged, never block the reload.
var ConfigReloadFailed = host.NewNotify[ReloadFailure]("config/reload-failed")
