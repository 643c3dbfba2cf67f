package mcp

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"slices"
	"strings"
)

// guard is the HTTP transport's front door (docs/mcp.md "Security model"):
// DNS-rebinding defence first, then the bearer token.
//
//   - Host: the request's Host name must be a loopback name, the listen
//     address's host, or one of allowHosts (a name, or name:port); else 403.
//   - Origin: when present it must be one of the server's own loopback
//     origins (http[s]://localhost|127.0.0.1|[::1]:PORT) or allowOrigins;
//     else 403. Requests without Origin (non-browser clients) pass.
//   - Authorization: `Bearer <token>`, compared in constant time; else 401
//     with `WWW-Authenticate: Bearer`. No token means no check (noAuth).
//   - A DELETE that passed cancels its session's running calls before the
//     SDK ends the session (sessioncalls.go).
type guard struct {
	next    http.Handler
	limits  *callLimits   // tracks POSTs for the drain
	calls   *sessionCalls // a DELETE cancels its session's running calls
	token   []byte        // sha256 of the token; nil: no auth
	hosts   []string
	origins []string
}

func newGuard(next http.Handler, c *callLimits, calls *sessionCalls, token string, listenHost, port string, tls bool, allowHosts, allowOrigins []string) *guard {
	g := &guard{next: next, limits: c, calls: calls}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		g.token = sum[:]
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	for _, h := range []string{"localhost", "127.0.0.1", "[::1]"} {
		g.origins = append(g.origins, scheme+"://"+h+":"+port)
	}
	for _, o := range allowOrigins {
		g.origins = append(g.origins, strings.ToLower(strings.TrimSuffix(o, "/")))
	}
	if listenHost != "" && !net.ParseIP(listenHost).IsUnspecified() {
		g.hosts = append(g.hosts, strings.ToLower(listenHost))
	}
	for _, h := range allowHosts {
		g.hosts = append(g.hosts, strings.ToLower(h))
	}
	return g
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		http.Error(w, "Forbidden: Host "+r.Host+" is not allowed", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !slices.Contains(g.origins, strings.ToLower(o)) {
		http.Error(w, "Forbidden: Origin "+o+" is not allowed", http.StatusForbidden)
		return
	}
	if g.token != nil && !g.authorized(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		http.Error(w, "Unauthorized: a valid bearer token is required", http.StatusUnauthorized)
		return
	}
	if id := r.Header.Get("Mcp-Session-Id"); r.Method == http.MethodDelete && id != "" && g.calls != nil {
		// The SDK ends the session only once its handlers have returned:
		// cancel them first, so DELETE is prompt whatever a call is doing.
		g.calls.cancel(id)
	}
	if r.Method == http.MethodPost {
		if !g.limits.requests.begin() {
			http.Error(w, "Service Unavailable: the server is shutting down", http.StatusServiceUnavailable)
			return
		}
		defer g.limits.requests.end()
	}
	g.next.ServeHTTP(w, r)
}

// hostAllowed checks a Host header value (name or name:port).
func (g *guard) hostAllowed(hostport string) bool {
	hostport = strings.ToLower(hostport)
	name := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		name = h
	}
	name = strings.Trim(name, "[]")
	if loopbackHost(name) {
		return true
	}
	return slices.Contains(g.hosts, name) || slices.Contains(g.hosts, hostport)
}

// authorized compares the header's token with the server's in constant
// time (of their hashes, so the length does not leak either).
func (g *guard) authorized(header string) bool {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(sum[:], g.token) == 1
}
