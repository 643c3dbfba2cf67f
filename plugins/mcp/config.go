package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"
)

// Defaults of the limits (docs/mcp.md "Limits and timeouts").
const (
	// DefaultSessionIdleTimeout ends an HTTP session without requests.
	DefaultSessionIdleTimeout = 30 * time.Minute
	// DefaultDrainTimeout is how long shutdown waits for calls in flight
	// before cancelling them.
	DefaultDrainTimeout = 10 * time.Second
)

// Config is the `mcp` plugin's config (docs/configuration.md "mcp"). The
// keys with a json name come from a deployment file, `DSH_MCP_<KEY>` or
// `--set mcp.<key>=...`; dshhost serve's flags override them. The fields
// tagged `json:"-"` are set by the program that mounts the plugin, never by
// a file.
type Config struct {
	// HTTP is the listen address of the streamable HTTP transport
	// (`127.0.0.1:0` picks a free port); empty serves stdio.
	HTTP string `json:"http"`
	// Token is the bearer token HTTP clients must send (DSH_MCP_TOKEN).
	Token string `json:"token"`
	// TokenFile names a file whose content (trimmed) is the token.
	TokenFile string `json:"tokenFile"`
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
	// MaxInFlight bounds the tool calls running at once, across sessions.
	MaxInFlight int `json:"maxInFlight"`
	// CallTimeout bounds one tool call; its context is cancelled then.
	CallTimeout time.Duration `json:"callTimeout"`
	// SessionIdleTimeout ends an HTTP session that made no request for
	// this long.
	SessionIdleTimeout time.Duration `json:"sessionIdleTimeout"`
	// DrainTimeout is how long Shutdown waits for calls in flight.
	DrainTimeout time.Duration `json:"drainTimeout"`

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
	// Workspace is the front end's workspace (roots.go); nil means every
	// session works in the provider's own cwd and roots are never asked.
	Workspace Workspace `json:"-"`
}

func defaultConfig() Config {
	return Config{
		MaxMessageBytes:    DefaultMaxMessageBytes,
		MaxInFlight:        DefaultMaxInFlight,
		CallTimeout:        DefaultCallTimeout,
		SessionIdleTimeout: DefaultSessionIdleTimeout,
		DrainTimeout:       DefaultDrainTimeout,
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
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"callTimeout", c.CallTimeout}, {"sessionIdleTimeout", c.SessionIdleTimeout}, {"drainTimeout", c.DrainTimeout}} {
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
		case !c.NoAuth && c.Token == "" && c.TokenFile == "" && !loopbackHost(host):
			errs = append(errs, fmt.Errorf("mcp: listening on %q, which is not loopback, needs an explicit token (tokenFile or DSH_MCP_TOKEN)", c.HTTP))
		}
	}
	return errors.Join(errs...)
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
		Token              string `json:"token,omitempty"`
		CallTimeout        string `json:"callTimeout"`
		SessionIdleTimeout string `json:"sessionIdleTimeout"`
		DrainTimeout       string `json:"drainTimeout"`
	}{keys: keys(c), CallTimeout: c.CallTimeout.String(), SessionIdleTimeout: c.SessionIdleTimeout.String(), DrainTimeout: c.DrainTimeout.String()})
}
