// Package frontend is the contract between `dshhost serve` and the plugin
// that serves a deployment's tools to clients (the `mcp` plugin): the
// service serve waits on and shuts down, what serve gives the plugin it
// mounts, and the workspace it shares with it. serve finds the front end as
// the deployment entry whose plugin provides [Key]; `call` and `run` never
// mount such an entry.
package frontend

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/dsh-go/dsh/host"
)

// Key is the service key of the running front end ("frontend").
var Key = host.NewKey[Server]("frontend")

// Server is a running front end.
type Server interface {
	// Done is closed when the transport ended by itself: the stdio client
	// closed its input, or the listener failed.
	Done() <-chan struct{}
	// Shutdown stops accepting, drains the calls in flight (bounded by
	// the front end's drain timeout or ctx) and closes every connection.
	// Later calls return the first result.
	Shutdown(ctx context.Context) error
	// Hold defers the clients' tool-list change notifications until the
	// returned release runs, so that a batch of changes (a reload swapping
	// plugins) reaches them as one, or as none when the set came back the
	// same. Holds nest; release is idempotent.
	Hold() (release func())
	// Endpoint says where it serves, for logs: "stdio" or a URL.
	Endpoint() string
	// Announce tells the clients that asked for the server's log messages
	// one at level ("info", "warning", "error", ...), e.g. a reload's
	// result.
	Announce(level, message string)
	// CallTimeout is the longest a tool call may run before it is
	// cancelled: a config reload waits that long at most for the calls
	// of the plugins it replaces.
	CallTimeout() time.Duration
}

// Mount is what the program that serves gives the front end it mounts:
// the fields no deployment file sets.
type Mount struct {
	// Name and Version identify the server to clients.
	Name, Version string
	// Logger receives the front end's logs.
	Logger *slog.Logger
	// Stdin and Stdout are the stdio transport's streams; Stderr receives
	// what the front end says once at start (where it listens, a generated
	// token).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Workspace is the program's workspace.
	Workspace Workspace
	// Environ is the program's environment (KEY=value).
	Environ []string
}

// Mountable is implemented by a front end's config type: WithMount returns
// the config with m applied, as a value of the same type.
type Mountable interface {
	WithMount(m Mount) any
}

// SharedWorkspace is implemented by a front end's config type whose
// transport may serve several clients at once (HTTP): no client's roots
// may then choose the workspace, and serve refuses to start without a
// configured one.
type SharedWorkspace interface {
	SharedWorkspace() bool
}

// Workspace is the program's workspace as the front end sees it.
type Workspace interface {
	// Dir is the working directory of new calls' conversations.
	Dir() string
	// Ready is asked before every call; an error fails the call with its
	// text (e.g. no workspace yet).
	Ready() error
	// Pending reports whether the workspace still waits for the client's
	// roots.
	Pending() bool
	// UseRoot makes dir (the client's first usable root) the workspace.
	UseRoot(ctx context.Context, dir string) error
	// NoRoot stops waiting for roots; reason says why none was usable.
	NoRoot(reason string)
}

// Provides reports whether entries of plugin p are front ends: p provides
// [Key].
func Provides(p *host.Plugin) bool {
	for _, name := range p.ProvidedServices() {
		if name == Key.Name() {
			return true
		}
	}
	return false
}
