package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// guard is the HTTP transport's front door (docs/mcp.md "Security model"):
// DNS-rebinding defence first, then the bearer token.
//
//   - Host: the request's Host name must be a loopback name, the listen
//     address's host, or one of allowHosts (a name, or name:port); else 403.
//   - Origin: when present it must be one of the server's own loopback
//     origins (http[s]://localhost|127.0.0.1|[::1]:PORT) or allowOrigins;
//     else 403. Requests without Origin (non-browser clients) pass.
//   - Authorization: `Bearer <token>`, compared in constant time with every
//     configured token; the matching one's principal goes on in the
//     request's context (conversations.md §4.2); no match is 401 with
//     `WWW-Authenticate: Bearer`. No token means no check (noAuth).
//   - A DELETE that passed cancels its session's running calls before the
//     SDK ends the session (sessioncalls.go).
type guard struct {
	next        http.Handler
	calls       *sessionCalls // a DELETE cancels its session's running calls
	readTimeout time.Duration // bounds reading each request
	creds       atomic.Pointer[[]hashedCredential]
	hosts       []string
	origins     []string
}

// hashedCredential is a credential with its token's SHA-256.
type hashedCredential struct {
	principal string
	sum       [sha256.Size]byte
}

func newGuard(next http.Handler, calls *sessionCalls, readTimeout time.Duration, listenHost, port string, tls bool, allowHosts, allowOrigins []string) *guard {
	g := &guard{next: next, calls: calls, readTimeout: readTimeout}
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
	deadline(w, g.readTimeout) // the body, whoever reads it
	if !g.hostAllowed(r.Host) {
		refuse(w, "Forbidden: Host "+r.Host+" is not allowed", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !slices.Contains(g.origins, strings.ToLower(o)) {
		refuse(w, "Forbidden: Origin "+o+" is not allowed", http.StatusForbidden)
		return
	}
	if creds := *g.creds.Load(); len(creds) > 0 {
		principal, ok := authorized(creds, r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			refuse(w, "Unauthorized: a valid bearer token is required", http.StatusUnauthorized)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), principalKey{}, principal))
	}
	if id := r.Header.Get("Mcp-Session-Id"); r.Method == http.MethodDelete && id != "" && g.calls != nil {
		// The SDK ends the session only once its handlers have returned:
		// cancel them first, so DELETE is prompt whatever a call is doing.
		g.calls.cancel(id)
	}
	g.next.ServeHTTP(w, r)
}

// refuse answers a request the guard turns away and ends its connection,
// so that an unauthenticated client neither keeps it open nor makes the
// server read its body.
func refuse(w http.ResponseWriter, message string, status int) {
	w.Header().Set("Connection", "close")
	http.Error(w, message, status)
	endReading(w)
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

// setCredentials makes creds the accepted tokens (none: no auth).
func (g *guard) setCredentials(creds []credential) {
	hashed := make([]hashedCredential, len(creds))
	for i, c := range creds {
		hashed[i] = hashedCredential{principal: c.principal, sum: sha256.Sum256([]byte(c.token))}
	}
	g.creds.Store(&hashed)
}

// authorized compares the header's token with every configured one in
// constant time (of their hashes, so the length does not leak either, and
// every token is compared, so the match's place does not) and returns the
// principal of the match.
func authorized(creds []hashedCredential, header string) (principal string, ok bool) {
	scheme, tok, found := strings.Cut(header, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	for _, c := range creds {
		if subtle.ConstantTimeCompare(sum[:], c.sum[:]) == 1 {
			principal, ok = c.principal, true
		}
	}
	return principal, ok
}
