package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/dsh-go/dsh/plugins/frontend"
)

// DefaultDrainTimeout is how long shutdown waits for calls in flight
// before cancelling them (docs/mcp.md "Limits and timeouts").
const DefaultDrainTimeout = 10 * time.Second

// TokenSource says where one named bearer token is read (conversations.md
// §4.2): File (its content, trimmed) or Env (the variable's value,
// trimmed), exactly one; never the secret itself.
type TokenSource struct {
	File string `json:"file"`
	Env  string `json:"env"`
}

// Config is the `mcp` plugin's config (docs/configuration.md "mcp"). The
// keys with a json name come from a deployment file, `DSH_MCP_<KEY>` or
// `--set mcp.<key>=...`; dshhost serve's flags override them. The fields
// tagged `json:"-"` are set by the program that mounts the plugin, never by
// a file.
type Config struct {
	// HTTP is the listen address of the streamable HTTP transport
	// (`127.0.0.1:0` picks a free port); empty serves stdio.
	HTTP string `json:"http"`
	// Token is the bearer token HTTP clients must send, principal
	// "default" (DSH_MCP_TOKEN; never from a deployment file, which the
	// model may read).
	Token string `json:"token" dsh:"secret"`
	// TokenFile names a file whose content (trimmed) is the token of the
	// principal "default".
	TokenFile string `json:"tokenFile"`
	// Tokens are named bearer tokens: principal name ([a-z0-9_-]{1,32},
	// not default, stdio, cli or anonymous) → where its token is read.
	// Token files and variables are read at start and at each reload.
	Tokens map[string]TokenSource `json:"tokens"`
	// NoAuth turns the token off; accepted only on a loopback address.
	NoAuth bool `json:"noAuth"`
	// TLSCert and TLSKey are PEM files; with both set HTTP is served over
	// TLS.
	TLSCert string `json:"tlsCert"`
	TLSKey  string `json:"tlsKey"`
	// AllowOrigins are origins (scheme://host[:port]) accepted besides the
	// server's own loopback origins.
	AllowOrigins []string `json:"allowOrigins"`
	// AllowHosts are Host header names (with or without port) accepted
	// besides the listen address and loopback names.
	AllowHosts []string `json:"allowHosts"`
	// MaxMessageBytes bounds one message, in bytes.
	MaxMessageBytes int64 `json:"maxMessageBytes"`
	// MaxInFlight bounds the tool calls running at once, across
	// conversations.
	MaxInFlight int `json:"maxInFlight"`
	// CallTimeout bounds one tool call; its context is cancelled then.
	CallTimeout time.Duration `json:"callTimeout"`
	// ConversationIdleTimeout ends a conversation none of whose calls
	// started for this long, and a legacy HTTP session that made no
	// request for this long (conversations.md §2).
	ConversationIdleTimeout time.Duration `json:"conversationIdleTimeout"`
	// MaxConversations bounds the live conversations; past it the least
	// recently active one ends.
	MaxConversations int `json:"maxConversations"`
	// SessionIdleTimeout is refused: renamed to conversationIdleTimeout.
	SessionIdleTimeout any `json:"sessionIdleTimeout,omitempty"`
	// DrainTimeout is how long Shutdown waits for calls in flight.
	DrainTimeout time.Duration `json:"drainTimeout"`
	// ReadTimeout bounds reading one HTTP request: its headers, then its
	// body.
	ReadTimeout time.Duration `json:"readTimeout"`

	// Name and Version identify the server to clients (default "dshhost").
	Name    string `json:"-"`
	Version string `json:"-"`
	// Stdin and Stdout are the stdio transport's streams (default the
	// process's); Stderr receives the listening line and a generated
	// token (default os.Stderr).
	Stdin  io.Reader `json:"-"`
	Stdout io.Writer `json:"-"`
	Stderr io.Writer `json:"-"`
	// Logger receives the server's logs (default the scope's logger).
	Logger *slog.Logger `json:"-"`
	// Environ is the environment (KEY=value) the variables of `tokens`
	// entries with env are read from; nil means the process's.
	Environ []string `json:"-"`
	// Workspace is the program's workspace (roots.go); nil means every
	// conversation works in the provider's own cwd and roots are never
	// asked.
	Workspace frontend.Workspace `json:"-"`
}

// WithMount returns c with the fields the serving program sets
// (frontend.Mountable).
func (c Config) WithMount(m frontend.Mount) any {
	c.Name, c.Version, c.Logger = m.Name, m.Version, m.Logger
	c.Stdin, c.Stdout, c.Stderr = m.Stdin, m.Stdout, m.Stderr
	c.Workspace, c.Environ = m.Workspace, m.Environ
	return c
}

// SharedWorkspace reports whether c serves HTTP, where every client shares
// the workspace (frontend.SharedWorkspace, conversations.md §4.1).
func (c Config) SharedWorkspace() bool { return c.HTTP != "" }

func defaultConfig() Config {
	return Config{
		MaxMessageBytes:         DefaultMaxMessageBytes,
		MaxInFlight:             DefaultMaxInFlight,
		CallTimeout:             DefaultCallTimeout,
		ConversationIdleTimeout: DefaultConversationIdleTimeout,
		MaxConversations:        DefaultMaxConversations,
		DrainTimeout:            DefaultDrainTimeout,
		ReadTimeout:             DefaultReadTimeout,
	}
}

// Validate checks the limits and the transport's security rules: a
// non-loopback address needs an explicit token (or file) and noAuth needs a
// loopback address; TLS needs both files and the HTTP transport; each
// allowed origin is `scheme://host[:port]` with scheme http or https (the
// form an Origin header has), so a value that could never match is an
// error rather than silently ignored.
func (c *Config) Validate() error {
	var errs []error
	if c.MaxMessageBytes < 1 {
		errs = append(errs, errors.New("mcp: maxMessageBytes must be a positive integer"))
	}
	if c.MaxInFlight < 1 {
		errs = append(errs, errors.New("mcp: maxInFlight must be a positive integer"))
	}
	if c.MaxConversations < 1 {
		errs = append(errs, errors.New("mcp: maxConversations must be a positive integer"))
	}
	if c.SessionIdleTimeout != nil {
		errs = append(errs, errors.New("mcp: sessionIdleTimeout is renamed to conversationIdleTimeout"))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"callTimeout", c.CallTimeout}, {"conversationIdleTimeout", c.ConversationIdleTimeout}, {"drainTimeout", c.DrainTimeout}, {"readTimeout", c.ReadTimeout}} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("mcp: %s must be a positive duration", d.name))
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, errors.New("mcp: tlsCert and tlsKey go together"))
	}
	if c.TLSCert != "" && c.HTTP == "" {
		errs = append(errs, errors.New("mcp: tlsCert and tlsKey need http (TLS applies to the HTTP transport; stdio has none)"))
	}
	for i, o := range c.AllowOrigins {
		if !originForm(o) {
			errs = append(errs, fmt.Errorf("mcp: allowOrigins[%d] must be scheme://host[:port] with scheme http or https, not %q", i, o))
		}
	}
	if c.HTTP != "" {
		host, _, err := net.SplitHostPort(c.HTTP)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("mcp: http must be HOST:PORT: %v", err))
		case c.NoAuth && !loopbackHost(host):
			errs = append(errs, fmt.Errorf("mcp: noAuth is accepted only on a loopback address, not %q", c.HTTP))
		case !c.NoAuth && c.Token == "" && c.TokenFile == "" && len(c.Tokens) == 0 && !loopbackHost(host):
			errs = append(errs, fmt.Errorf("mcp: listening on %q, which is not loopback, needs an explicit token (tokenFile, DSH_MCP_TOKEN or tokens)", c.HTTP))
		}
	}
	if c.NoAuth && len(c.Tokens) > 0 {
		errs = append(errs, errors.New("mcp: noAuth and tokens exclude each other"))
	}
	for _, name := range slices.Sorted(maps.Keys(c.Tokens)) {
		src := c.Tokens[name]
		switch {
		case !principalName(name):
			errs = append(errs, fmt.Errorf("mcp: tokens: %q is not a principal name ([a-z0-9_-], 1 to 32 bytes)", name))
		case reservedPrincipal(name):
			errs = append(errs, fmt.Errorf("mcp: tokens: %q is a reserved principal name (default, stdio, cli and anonymous are)", name))
		}
		if (src.File == "") == (src.Env == "") {
			errs = append(errs, fmt.Errorf("mcp: tokens.%s needs exactly one of file and env (never the token itself)", name))
		}
		if len(src.Env) >= 4 && strings.EqualFold(src.Env[:4], "DSH_") {
			errs = append(errs, fmt.Errorf("mcp: tokens.%s: env %s is in the DSH_ namespace, which holds dshhost's config keys; name a variable without the DSH_ prefix", name, src.Env))
		}
	}
	return errors.Join(errs...)
}

// principalName reports whether name may name a principal: 1 to 32 bytes
// of [a-z0-9_-].
func principalName(name string) bool {
	if name == "" || len(name) > 32 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// reservedPrincipal reports whether name is a principal the server names
// itself (conversations.md §4.2).
func reservedPrincipal(name string) bool {
	switch name {
	case PrincipalDefault, PrincipalStdio, "cli", PrincipalAnonymous:
		return true
	}
	return false
}

// originForm reports whether o has the form of an Origin header value:
// `http://host[:port]` or `https://host[:port]`, nothing after (a trailing
// `/` is tolerated, as the guard trims it).
func originForm(o string) bool {
	u, err := url.Parse(strings.TrimSuffix(o, "/"))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		u.Path == "" && u.RawQuery == "" && u.Fragment == "" && u.User == nil
}

// loopbackHost reports whether host (no port) is a loopback name or IP.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// MarshalJSON writes the file form of the keys (`dshhost config`):
// durations as strings such as "5m0s", which load back, and no token (a
// secret; the printed deployment takes it from DSH_MCP_TOKEN or tokenFile
// again).
func (c Config) MarshalJSON() ([]byte, error) {
	type keys Config // without this method
	return json.Marshal(struct {
		keys
		Token                   string `json:"token,omitempty"`
		CallTimeout             string `json:"callTimeout"`
		ConversationIdleTimeout string `json:"conversationIdleTimeout"`
		DrainTimeout            string `json:"drainTimeout"`
		ReadTimeout             string `json:"readTimeout"`
	}{keys: keys(c), CallTimeout: c.CallTimeout.String(), ConversationIdleTimeout: c.ConversationIdleTimeout.String(), DrainTimeout: c.DrainTimeout.String(), ReadTimeout: c.ReadTimeout.String()})
}
