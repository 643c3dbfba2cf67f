package mcp

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the streamable HTTP transport is served.
const Path = "/mcp"

// httpToken returns the bearer token cfg asks for: Token, else the
// trimmed content of TokenFile, else (unless NoAuth) a fresh random token
// that is written once to stderr. generated reports the last case.
func httpToken(cfg Config) (token string, generated bool, err error) {
	switch {
	case cfg.NoAuth:
		return "", false, nil
	case cfg.Token != "":
		return cfg.Token, false, nil
	case cfg.TokenFile != "":
		b, err := os.ReadFile(cfg.TokenFile)
		if err != nil {
			return "", false, fmt.Errorf("mcp: tokenFile: %w", err)
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return "", false, fmt.Errorf("mcp: tokenFile %s is empty", cfg.TokenFile)
		}
		return token, false, nil
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b), true, nil
}

// listenHTTP starts the streamable HTTP transport on cfg.HTTP (stateful
// sessions, idle sessions ended after SessionIdleTimeout, bodies bounded by
// MaxMessageBytes) behind the guard, and writes `listening on
// http[s]://HOST:PORT/mcp` (and a generated token) to stderr.
func (s *Server) listenHTTP(cfg Config, stderr io.Writer) error {
	token, generated, err := httpToken(cfg)
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
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		SessionTimeout:             cfg.SessionIdleTimeout,
		MaxRequestBodyBytes:        cfg.MaxMessageBytes,
		Logger:                     s.opts.Logger,
		DisableLocalhostProtection: true, // the guard checks Host itself, with allowHosts
	})
	mux := http.NewServeMux()
	mux.Handle(Path, newGuard(handler, s.limits, &s.calls, token, listenHost, port, secure, cfg.AllowHosts, cfg.AllowOrigins))
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second}
	scheme := "http"
	if secure {
		s.http.TLSConfig = &tls.Config{Certificates: certs, MinVersion: tls.VersionTLS12}
		scheme = "https"
	}
	s.url = scheme + "://" + net.JoinHostPort(host, port) + Path
	fmt.Fprintln(stderr, "listening on "+s.url)
	if generated {
		fmt.Fprintln(stderr, "bearer token (send it as Authorization: Bearer <token>): "+token)
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
