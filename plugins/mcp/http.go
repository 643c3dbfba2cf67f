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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/semaphore"
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

// maxTokenFile bounds a token file, in bytes.
const maxTokenFile = 64 << 10

// readTokenFile returns the trimmed content of a token file: a regular
// file of at most maxTokenFile bytes, opened without blocking, so that a
// FIFO or a device put in its place is an error at once, never a start or
// reload that hangs or reads without end.
func readTokenFile(key, path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("mcp: %s: %w", key, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return "", fmt.Errorf("mcp: %s: %w", key, err)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("mcp: %s %s is not a regular file", key, path)
	case fi.Size() > maxTokenFile:
		return "", fmt.Errorf("mcp: %s %s is larger than %d KiB", key, path, maxTokenFile>>10)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("mcp: %s: %w", key, err)
	case len(b) > maxTokenFile:
		return "", fmt.Errorf("mcp: %s %s is larger than %d KiB", key, path, maxTokenFile>>10)
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
// requests and server/discover), bodies bounded by MaxMessageBytes,
// connections by connBounds, headers and bodies read within ReadTimeout.
// It writes `listening on http[s]://HOST:PORT/mcp` (and a generated token)
// to stderr.
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
	er := &eraRouter{
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
		maxBody:     cfg.MaxMessageBytes,
		readTimeout: cfg.ReadTimeout,
		bodies:      semaphore.NewWeighted(bodyBudgetFactor * (cfg.MaxMessageBytes + 1)),
		conns:       newConnBounds(),
		requests:    &s.limits.requests,
		inFlight:    map[string]map[string]bool{},
	}
	var router http.Handler = er
	conns := er.conns
	ln = conns.listener(ln)
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
	g := newGuard(router, &s.calls, cfg.ReadTimeout, listenHost, port, secure, cfg.AllowHosts, cfg.AllowOrigins)
	g.setCredentials(creds)
	s.guard = g
	mux := http.NewServeMux()
	mux.Handle(Path, g)
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: cfg.ReadTimeout, IdleTimeout: idleTimeout, ConnState: conns.connState, ConnContext: withConn}
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

// eraRouter is the HTTP transport after the guard: it reads each POST's
// body (within readTimeout, holding at most bodyBudgetFactor times
// maxMessageBytes of bodies at once), checks its request id as the stdio
// framing does, refuses an id still in flight in the same legacy session,
// bounds the long-lived streams, counts the calls for the drain (a request
// that comes during it gets 503 with Retry-After: 1), and sends each
// request to the handler of its era (conversations.md §4.1): to stateless
// when its MCP-Protocol-Version header is 2026-07-28 or later, or its body
// carries `_meta["io.modelcontextprotocol/protocolVersion"]`, or its method
// is server/discover; everything else to stateful (legacy sessions).
type eraRouter struct {
	stateful, stateless http.Handler
	maxBody             int64
	readTimeout         time.Duration
	bodies              *semaphore.Weighted // bytes of bodies held
	conns               *connBounds
	streams             streamSlots
	requests            *tracker // the calls being served, for the drain

	mu       sync.Mutex
	inFlight map[string]map[string]bool // legacy session id → request ids being served
}

func (e *eraRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	modernHeader := r.Header.Get("Mcp-Protocol-Version") >= modernVersion
	if r.Method != http.MethodPost || r.Body == nil {
		e.conns.doneReading(r)
		noDeadline(w)
		if r.Method == http.MethodGet {
			if e.requests.isDraining() {
				unavailable(w, "the server is shutting down")
				return
			}
			if !e.streams.begin() {
				unavailable(w, "too many open streams")
				return
			}
			defer e.streams.end()
		}
		e.handler(modernHeader).ServeHTTP(w, r)
		return
	}
	body, ok := e.readBody(w, r)
	if !ok {
		return
	}
	defer e.bodies.Release(int64(cap(body)))
	noDeadline(w)
	r.Body = io.NopCloser(bytes.NewReader(body))
	probe := probeBody(body)
	if why := probe.idProblem(); why != "" {
		writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "invalid request id: "+why)
		return
	}
	modern := modernHeader || probe.modern()
	if session := r.Header.Get("Mcp-Session-Id"); !modern && session != "" && len(probe.ID) > 0 && probe.Method != "" {
		id := canonicalID(probe.ID)
		if !e.begin(session, id) {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "duplicate request id: a request with this id is still in flight")
			return
		}
		defer e.end(session, id)
	}
	if probe.Method == "subscriptions/listen" {
		if !e.streams.begin() {
			unavailable(w, "too many open streams")
			return
		}
		defer e.streams.end()
	} else {
		if !e.requests.begin() {
			unavailable(w, "the server is shutting down")
			return
		}
		defer e.requests.end()
	}
	e.handler(modern).ServeHTTP(w, r)
}

func (e *eraRouter) handler(modern bool) http.Handler {
	if modern {
		return e.stateless
	}
	return e.stateful
}

// readBody reads r's body within the read timeout (the guard set the
// deadline) and the body budget, taking its bytes from the budget as they
// arrive (bodyChunk at a time), so that a slow sender holds no more than it
// sent; on a failure it answers the request itself and reports false. The
// returned slice's capacity is what it holds of the budget.
func (e *eraRouter) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	defer e.conns.doneReading(r)
	if r.ContentLength > e.maxBody {
		w.Header().Set("Connection", "close")
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", e.maxBody), http.StatusRequestEntityTooLarge)
		endReading(w)
		return nil, false
	}
	ctx, cancel := context.WithTimeout(r.Context(), e.readTimeout)
	defer cancel()
	first := int64(bodyChunk)
	if r.ContentLength >= 0 {
		first = r.ContentLength + 1 // one more, to see the end
	}
	if e.bodies.Acquire(ctx, first) != nil {
		unavailable(w, "too many request bodies are being read")
		return nil, false
	}
	body, held := make([]byte, 0, first), first
	src := http.MaxBytesReader(w, r.Body, e.maxBody)
	var err error
	for {
		if len(body) == cap(body) {
			more := min(int64(bodyChunk), e.maxBody+1-int64(len(body)))
			if more <= 0 || e.bodies.Acquire(ctx, more) != nil {
				e.bodies.Release(held)
				unavailable(w, "too many request bodies are being read")
				return nil, false
			}
			grown := make([]byte, len(body), int64(cap(body))+more)
			copy(grown, body)
			body, held = grown, held+more
		}
		var n int
		n, err = src.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if err != nil {
			break
		}
	}
	if errors.Is(err, io.EOF) {
		return body[:len(body):held], true
	}
	// The connection ends with this answer: the rest of the body is never
	// read (its deadline stays past).
	e.bodies.Release(held)
	w.Header().Set("Connection", "close")
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
	case errors.Is(err, os.ErrDeadlineExceeded):
		http.Error(w, fmt.Sprintf("request body not received within %s", e.readTimeout), http.StatusRequestTimeout)
	default:
		http.Error(w, "failed to read the request body", http.StatusBadRequest)
	}
	endReading(w)
	return nil, false
}

// canonicalID is the key of a request id for the in-flight check: a
// string by its value, a number by its integer value (`-0` is `0`).
func canonicalID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "s" + s
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return "n" + strconv.FormatInt(n, 10)
	}
	return "r" + string(raw)
}

// begin records request id as being served in legacy session; false when
// it already is.
func (e *eraRouter) begin(session, id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	ids := e.inFlight[session]
	if ids == nil {
		ids = map[string]bool{}
		e.inFlight[session] = ids
	}
	if ids[id] {
		return false
	}
	ids[id] = true
	return true
}

func (e *eraRouter) end(session, id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.inFlight[session], id)
	if len(e.inFlight[session]) == 0 {
		delete(e.inFlight, session)
	}
}

// bodyProbe is what the router reads of a JSON-RPC message body.
type bodyProbe struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
	ok bool // the body is one JSON object of this shape
}

// probeBody reads body's method, id and per-request protocol version; a
// body that is no such object (a batch, bad JSON) is left to the SDK to
// answer.
func probeBody(body []byte) bodyProbe {
	var p bodyProbe
	p.ok = json.Unmarshal(body, &p) == nil
	return p
}

// idProblem is checkID's reason for the probed request's id, or "".
func (p bodyProbe) idProblem() string {
	if !p.ok || p.ID == nil {
		return ""
	}
	return checkID(p.ID)
}

// modern reports whether the body belongs to the stateless era: method
// server/discover, or a per-request protocol version in params._meta.
func (p bodyProbe) modern() bool {
	_, meta := p.Params.Meta[mcp.MetaKeyProtocolVersion]
	return p.ok && (meta || p.Method == "server/discover")
}

// writeRPCError answers with HTTP status and a JSON-RPC error of id null.
func writeRPCError(w http.ResponseWriter, status int, code int64, message string) {
	msg, _ := json.Marshal(message)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":`+strconv.FormatInt(code, 10)+`,"message":`+string(msg)+"}}\n")
}

// unavailable answers 503 with Retry-After: 1.
func unavailable(w http.ResponseWriter, why string) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, "Service Unavailable: "+why, http.StatusServiceUnavailable)
}

// stopKeepAlives ends each HTTP connection after its current request:
// during the drain new requests still get an answer (503), and once it is
// over closeHTTP closes the listener and the connections.
func (s *Server) stopKeepAlives() {
	if s.http != nil {
		s.http.SetKeepAlivesEnabled(false)
	}
}

func (s *Server) closeHTTP() {
	if s.http != nil {
		_ = s.http.Close()
	}
}
