package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the streamable HTTP transport is served.
const Path = "/mcp"

// credential is one bearer token and the principal it names.
type credential struct {
	principal string
	token     string
}

// credentials returns the bearer tokens cfg asks for (conversations.md
// §4.2): Token, else the trimmed content of TokenFile, as the principal
// "default", and each of Tokens read from its file or variable. With none
// of them and without NoAuth, a fresh random token is the default one;
// generated is then that token (written once to stderr). Two principals
// with the same token are refused.
func credentials(cfg Config) (creds []credential, generated string, err error) {
	if cfg.NoAuth {
		return nil, "", nil
	}
	switch {
	case cfg.Token != "":
		creds = append(creds, credential{PrincipalDefault, cfg.Token})
	case cfg.TokenFile != "":
		tok, err := readTokenFile("tokenFile", cfg.TokenFile)
		if err != nil {
			return nil, "", err
		}
		creds = append(creds, credential{PrincipalDefault, tok})
	}
	lookup := os.LookupEnv
	if cfg.Environ != nil {
		lookup = func(name string) (string, bool) {
			for _, kv := range cfg.Environ {
				if k, v, ok := strings.Cut(kv, "="); ok && k == name {
					return v, true
				}
			}
			return "", false
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Tokens)) {
		src := cfg.Tokens[name]
		var tok string
		if src.File != "" {
			if tok, err = readTokenFile("tokens."+name, src.File); err != nil {
				return nil, "", err
			}
		} else {
			v, _ := lookup(src.Env)
			if tok = strings.TrimSpace(v); tok == "" {
				return nil, "", fmt.Errorf("mcp: tokens.%s: the variable %s is unset or empty", name, src.Env)
			}
		}
		creds = append(creds, credential{name, tok})
	}
	for i, a := range creds {
		for _, b := range creds[:i] {
			if a.token == b.token {
				return nil, "", fmt.Errorf("mcp: the principals %q and %q have the same token", b.principal, a.principal)
			}
		}
	}
	if len(creds) == 0 {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		generated = hex.EncodeToString(b)
		creds = append(creds, credential{PrincipalDefault, generated})
	}
	return creds, generated, nil
}

// readTokenFile returns the trimmed content of a token file.
func readTokenFile(key, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("mcp: %s: %w", key, err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("mcp: %s %s is empty", key, path)
	}
	return tok, nil
}

// listenHTTP starts the streamable HTTP transport on cfg.HTTP behind the
// guard (conversations.md §4.1): both eras on one endpoint, routed by
// eraRouter to a stateful handler (legacy sessions, ended after
// ConversationIdleTimeout without requests) or a stateless one (2026-07-28
// requests and server/discover), bodies bounded by MaxMessageBytes. It
// writes `listening on http[s]://HOST:PORT/mcp` (and a generated token) to
// stderr.
func (s *Server) listenHTTP(cfg Config, stderr io.Writer) error {
	creds, generated, err := credentials(cfg)
	if err != nil {
		return err
	}
	var certs []tls.Certificate
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return fmt.Errorf("mcp: tlsCert/tlsKey: %w", err)
		}
		certs = append(certs, cert)
	}
	ln, err := net.Listen("tcp", cfg.HTTP)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	listenHost, _, _ := net.SplitHostPort(cfg.HTTP)
	secure := len(certs) > 0
	if cfg.NoAuth {
		s.principal = PrincipalAnonymous
	}
	server := func(*http.Request) *mcp.Server { return s.srv }
	var router http.Handler = &eraRouter{
		stateful: mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
			SessionTimeout:             cfg.ConversationIdleTimeout,
			MaxRequestBodyBytes:        cfg.MaxMessageBytes,
			Logger:                     sdkLogger(s.opts.Logger),
			DisableLocalhostProtection: true, // the guard checks Host itself, with allowHosts
		}),
		stateless: mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
			Stateless:                  true,
			MaxRequestBodyBytes:        cfg.MaxMessageBytes,
			Logger:                     sdkLogger(s.opts.Logger),
			DisableLocalhostProtection: true,
		}),
		maxBody: cfg.MaxMessageBytes,
	}
	if !cfg.NoAuth {
		// The guard checked the token; this hands its principal to the SDK
		// as the token's identity: a legacy session begun under one
		// principal is refused under another, and calls see it
		// (RequestExtra.TokenInfo).
		router = auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
			p, _ := ctx.Value(principalKey{}).(string)
			return &auth.TokenInfo{UserID: p}, nil
		}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(router)
	}
	g := newGuard(router, s.limits, &s.calls, listenHost, port, secure, cfg.AllowHosts, cfg.AllowOrigins)
	g.setCredentials(creds)
	s.guard = g
	mux := http.NewServeMux()
	mux.Handle(Path, g)
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second}
	scheme := "http"
	if secure {
		s.http.TLSConfig = &tls.Config{Certificates: certs, MinVersion: tls.VersionTLS12}
		scheme = "https"
	}
	s.url = scheme + "://" + net.JoinHostPort(host, port) + Path
	fmt.Fprintln(stderr, "listening on "+s.url)
	if generated != "" {
		fmt.Fprintln(stderr, "bearer token (send it as Authorization: Bearer <token>): "+generated)
	}
	go func() {
		var err error
		if secure {
			err = s.http.ServeTLS(ln, "", "")
		} else {
			err = s.http.Serve(ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.opts.Logger.Error("mcp: HTTP server stopped", "err", err)
			s.end()
		}
	}()
	return nil
}

// ReadTokens reads the bearer tokens of cfg again (token files and
// variables, conversations.md §4.2) and makes them the ones the running
// HTTP transport accepts; a generated token stays as it is. On an error
// the tokens in force stay. It does nothing on stdio.
func (s *Server) ReadTokens(cfg Config) error {
	if s.guard == nil || cfg.NoAuth {
		return nil
	}
	if cfg.Token == "" && cfg.TokenFile == "" && len(cfg.Tokens) == 0 {
		return nil // the generated token is kept
	}
	creds, _, err := credentials(cfg)
	if err != nil {
		return err
	}
	s.guard.setCredentials(creds)
	return nil
}

// principalKey carries the principal the guard matched, in the request's
// context.
type principalKey struct{}

// eraRouter sends each request to the handler of its era
// (conversations.md §4.1): to stateless when its MCP-Protocol-Version
// header is 2026-07-28 or later, or its body carries
// `_meta["io.modelcontextprotocol/protocolVersion"]`, or its method is
// server/discover; everything else to stateful (legacy sessions).
type eraRouter struct {
	stateful, stateless http.Handler
	maxBody             int64
}

func (e *eraRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Mcp-Protocol-Version") >= modernVersion {
		e.stateless.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost || r.Body == nil {
		e.stateful.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, e.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if modernBody(body) {
		e.stateless.ServeHTTP(w, r)
		return
	}
	e.stateful.ServeHTTP(w, r)
}

// modernBody reports whether a JSON-RPC request body belongs to the
// stateless era: method server/discover, or a per-request protocol
// version in params._meta. A body that mentions neither is not decoded.
func modernBody(body []byte) bool {
	if !bytes.Contains(body, []byte("discover")) && !bytes.Contains(body, []byte("protocolVersion")) {
		return false
	}
	var probe struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &probe) != nil {
		return false
	}
	_, ok := probe.Params.Meta[mcp.MetaKeyProtocolVersion]
	return ok || probe.Method == "server/discover"
}

// stopHTTP stops accepting HTTP connections; ongoing requests go on until
// closeHTTP.
func (s *Server) stopHTTP() {
	if s.http == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Shutdown closes the listeners, then returns at once
	_ = s.http.Shutdown(ctx)
}

func (s *Server) closeHTTP() {
	if s.http != nil {
		_ = s.http.Close()
	}
}
