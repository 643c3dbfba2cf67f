package mcpserver

import (
	"crypto/subtle"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultSessionIdleTimeout is how long an HTTP session may stay without a
// request before it is closed (and session/closed emitted): 30 minutes.
const DefaultSessionIdleTimeout = 30 * time.Minute

// HTTPOptions configure the streamable HTTP front end (issue 12).
type HTTPOptions struct {
	// Addr is the bound listen address, host:port (after a ":0" port was
	// chosen): the Host and Origin checks allow it.
	Addr string
	// Token is the bearer token every request must carry in
	// `Authorization: Bearer <token>`, compared in constant time. Empty means
	// no authentication; the caller allows that on loopback only.
	Token string
	// TLS says the server is served over HTTPS (its own origins are https).
	TLS bool
	// AllowOrigins are origins allowed besides the server's own loopback
	// ones (scheme://host[:port], compared exactly).
	AllowOrigins []string
	// AllowHosts are Host names allowed besides the listen host and the
	// loopback names (for 0.0.0.0 listeners and reverse proxies).
	AllowHosts []string
	// MaxMessageBytes bounds a request body; 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int64
	// SessionIdleTimeout closes a session that made no request for that
	// long; 0 means DefaultSessionIdleTimeout.
	SessionIdleTimeout time.Duration
}

// HTTPHandler returns the streamable HTTP handler of the server, at /mcp:
// the go-sdk's handler in its stateful mode (each client gets a session id,
// and so its own tool session and read-before-edit state; DELETE ends it),
// behind three checks, in order:
//
//   - a Host that is neither the listen host, a loopback name (localhost,
//     127.0.0.1, ::1) nor one of AllowHosts gets 403 (DNS rebinding);
//   - an Origin header that is present and is neither one of the server's
//     own origins (its listen address and the loopback names on its port)
//     nor one of AllowOrigins gets 403;
//   - with a Token, a request without `Authorization: Bearer <token>` gets
//     401 with `WWW-Authenticate: Bearer`.
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if opts.SessionIdleTimeout <= 0 {
		opts.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		Logger:              s.opts.Logger,
		SessionTimeout:      opts.SessionIdleTimeout,
		MaxRequestBodyBytes: opts.MaxMessageBytes,
		// The Host check below is the DNS-rebinding defence, with the
		// operator's --allow-host names; the SDK's own would refuse them.
		DisableLocalhostProtection: true,
	})
	g := newHTTPGuard(opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", g.wrap(streamable))
	return mux
}

// httpGuard holds the Host, Origin and token checks of HTTPHandler.
type httpGuard struct {
	hosts   []string // allowed Host names, lower case
	origins []string // allowed Origin values
	token   []byte
}

var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

func newHTTPGuard(opts HTTPOptions) *httpGuard {
	g := &httpGuard{token: []byte(opts.Token)}
	host, port, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		host, port = opts.Addr, ""
	}
	g.hosts = append(g.hosts, strings.ToLower(host))
	g.hosts = append(g.hosts, loopbackNames...)
	for _, h := range opts.AllowHosts {
		g.hosts = append(g.hosts, strings.ToLower(h))
	}
	scheme := "http://"
	if opts.TLS {
		scheme = "https://"
	}
	for _, h := range append([]string{host}, loopbackNames...) {
		if port != "" {
			g.origins = append(g.origins, scheme+net.JoinHostPort(h, port))
		}
	}
	g.origins = append(g.origins, opts.AllowOrigins...)
	return g
}

func (g *httpGuard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		host = strings.Trim(strings.ToLower(host), "[]")
		if !slices.Contains(g.hosts, host) {
			http.Error(w, "forbidden: Host "+r.Host+" is not allowed", http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !slices.Contains(g.origins, origin) {
			http.Error(w, "forbidden: Origin "+origin+" is not allowed", http.StatusForbidden)
			return
		}
		if len(g.token) > 0 {
			given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(given), g.token) != 1 {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "unauthorized: a bearer token is required", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
