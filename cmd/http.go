package cmd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/mcpserver"
)

// httpFlags are serve's flags for streamable HTTP (issue 12).
type httpFlags struct {
	addr, tokenFile, tlsCert, tlsKey string
	noAuth                           bool
	allowOrigins, allowHosts         listFlag
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.addr, "http", "", "serve MCP over streamable HTTP at `ADDR` (host:port; 127.0.0.1:0 picks a free port) instead of stdio")
	fs.StringVar(&h.tokenFile, "token-file", "", "with --http: read the bearer token from `FILE` (else DSH_MCP_TOKEN, else a random token printed once)")
	fs.BoolVar(&h.noAuth, "no-auth", false, "with --http on a loopback address: no bearer token")
	fs.Var(&h.allowOrigins, "allow-origin", "with --http: also allow this `ORIGIN` (scheme://host[:port]; repeatable)")
	fs.Var(&h.allowHosts, "allow-host", "with --http: also allow this Host `NAME` (repeatable; for 0.0.0.0 and proxies)")
	fs.StringVar(&h.tlsCert, "tls-cert", "", "with --http: serve HTTPS with this certificate `FILE` (and --tls-key)")
	fs.StringVar(&h.tlsKey, "tls-key", "", "with --http: the TLS key `FILE`")
}

// httpShutdownGrace bounds how long a stopping HTTP server waits for its
// requests in flight before closing their connections.
const httpShutdownGrace = 10 * time.Second

// serveHTTP serves srv over streamable HTTP at h.addr until ctx is done,
// then shuts the listener down (requests in flight get httpShutdownGrace).
// It writes `listening on http://HOST:PORT/mcp` to stderr once listening.
// It refuses to start (exit 2) with --no-auth off loopback, with no
// explicit token off loopback, with a token file that cannot be read or is
// empty, and with only one of --tls-cert and --tls-key.
func serveHTTP(ctx context.Context, env Env, h httpFlags, srv *mcpserver.Server, log *slog.Logger) int {
	fail := func(err error) int {
		fmt.Fprintln(env.Stderr, program+":", err)
		return 2
	}
	host, _, err := net.SplitHostPort(h.addr)
	if err != nil {
		return fail(fmt.Errorf("--http %s: %w", h.addr, err))
	}
	token, explicit, err := h.token(env)
	if err != nil {
		return fail(err)
	}
	loopback := isLoopback(host)
	switch {
	case h.noAuth && !loopback:
		return fail(fmt.Errorf("--no-auth is accepted only on a loopback address, not %s", h.addr))
	case h.noAuth:
		token = ""
	case !explicit && !loopback:
		return fail(fmt.Errorf("--http %s is not a loopback address: give the bearer token explicitly (--token-file FILE or DSH_MCP_TOKEN)", h.addr))
	case !explicit:
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		token = hex.EncodeToString(b)
		fmt.Fprintf(env.Stderr, "%s: bearer token for this run: %s\n", program, token)
	}
	if (h.tlsCert == "") != (h.tlsKey == "") {
		return fail(errors.New("--tls-cert and --tls-key go together"))
	}
	ln, err := net.Listen("tcp", h.addr)
	if err != nil {
		return fail(err)
	}
	tls := h.tlsCert != ""
	scheme := "http"
	if tls {
		scheme = "https"
	}
	hs := &http.Server{
		Handler: srv.HTTPHandler(mcpserver.HTTPOptions{Addr: ln.Addr().String(), Token: token, TLS: tls,
			AllowOrigins: h.allowOrigins, AllowHosts: h.allowHosts}),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() {
		if tls {
			errc <- hs.ServeTLS(ln, h.tlsCert, h.tlsKey)
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	fmt.Fprintf(env.Stderr, "listening on %s://%s/mcp\n", scheme, ln.Addr())
	select {
	case <-ctx.Done():
	case err := <-errc:
		return fail(err)
	}
	srv.EndApprovals() // a request waiting for the user ends now, not after the grace
	sctx, cancel := context.WithTimeout(context.Background(), httpShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("HTTP requests still open at shutdown were closed", "err", err)
		_ = hs.Close()
	}
	return 0
}

// token returns the bearer token and whether it was given explicitly:
// --token-file, else DSH_MCP_TOKEN.
func (h *httpFlags) token(env Env) (string, bool, error) {
	if h.tokenFile != "" {
		b, err := os.ReadFile(h.tokenFile)
		if err != nil {
			return "", false, fmt.Errorf("--token-file: %w", err)
		}
		t := strings.TrimSpace(string(b))
		if t == "" {
			return "", false, fmt.Errorf("--token-file %s is empty", h.tokenFile)
		}
		return t, true, nil
	}
	if t := strings.TrimSpace(lookupEnv(env.Environ, config.MCPTokenVariable)); t != "" {
		return t, true, nil
	}
	return "", false, nil
}

// isLoopback reports whether a listen host is a loopback address or
// localhost; an empty host (all interfaces) is not.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
