package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/frontend"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Plugin is the `mcp` plugin: it injects the tool registry, serves it over
// stdio (the default) or streamable HTTP (Config.HTTP), and provides the
// [Server] as the front end (frontend.Key): dshhost serve mounts it, waits
// on Done and calls Shutdown; call and run never mount it. Disposing it
// stops the transport at once (no drain: call Shutdown first).
var Plugin = host.Define[Config]("mcp", apply,
	host.Inject(tools.Key), host.Provides(frontend.Key), host.Defaults(defaultConfig))

func init() { host.Register(Plugin) }

func apply(_ context.Context, s *host.Scope, cfg Config) error {
	log := cfg.Logger
	if log == nil {
		log = s.Logger()
	}
	if cfg.Name == "" {
		cfg.Name = "dshhost"
	}
	stderr := cfg.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	opts := Options{Name: cfg.Name, Version: cfg.Version, Logger: log, MaxInFlight: cfg.MaxInFlight, CallTimeout: cfg.CallTimeout,
		MaxConversations: cfg.MaxConversations, ConversationIdleTimeout: cfg.ConversationIdleTimeout}
	switch {
	case cfg.Workspace == nil:
		opts.Cwd = func() string { return "" }
	case cfg.HTTP != "":
		// Over HTTP no client's roots choose the workspace
		// (conversations.md §4.1): every caller shares it.
		opts.Cwd, opts.Ready = cfg.Workspace.Dir, cfg.Workspace.Ready
	default:
		rootsOptions(cfg.Workspace, log, &opts)
	}
	srv, err := New(s, tools.Key.Must(s), opts)
	if err != nil {
		return err
	}
	srv.drainTimeout.Store(int64(cfg.DrainTimeout))
	// Token files and the TLS certificate and key are secrets no tool may
	// read or change (fsapi.Protect); the token files are registered again
	// with each reload, which reads them again.
	unprotect, err := fsapi.Protect(s, fsapi.ProtectSecret, cfg.secretFiles()...)
	if err != nil {
		return err
	}
	if _, err := s.Effect("mcp: stop serving", func(ctx context.Context) error {
		return srv.Shutdown(ctx)
	}); err != nil {
		return err
	}
	// A config change never restarts the front end (that would cut the
	// clients' sessions): the call limits, the conversation bounds and the
	// tokens (files and variables read again) apply in place; the other
	// keys take effect at the next start.
	running := cfg
	if err := host.OnUpdate(s, func(_ context.Context, next Config) error {
		if err := srv.ReadTokens(next); err != nil {
			log.Error("config reload: the tokens could not be read again; the tokens in force stay", "err", err)
		} else if d, perr := fsapi.Protect(s, fsapi.ProtectSecret, cfg.withLiveKeysOf(next).secretFiles()...); perr == nil {
			_ = unprotect(context.Background())
			unprotect = d
		}
		srv.limits.setLimits(next.MaxInFlight, next.CallTimeout)
		srv.conversations.setBounds(next.MaxConversations, next.ConversationIdleTimeout)
		srv.drainTimeout.Store(int64(next.DrainTimeout))
		if !sameTransport(running, next) {
			log.Warn("config reload: a change of the mcp transport's keys takes effect at the next start")
		}
		running = next
		return nil
	}); err != nil {
		return err
	}
	if cfg.HTTP != "" {
		err = srv.listenHTTP(cfg, stderr)
	} else {
		err = srv.serveStdio(cfg)
	}
	if err != nil {
		return err
	}
	_, err = frontend.Key.Provide(s, srv)
	return err
}

// withLiveKeysOf returns c with the keys of from that a config change
// applies in place to the running server: the call limits (maxInFlight,
// callTimeout, drainTimeout), the conversation bounds (maxConversations,
// conversationIdleTimeout) and the tokens (token, tokenFile, tokens).
func (c Config) withLiveKeysOf(from Config) Config {
	c.MaxInFlight, c.CallTimeout, c.DrainTimeout = from.MaxInFlight, from.CallTimeout, from.DrainTimeout
	c.MaxConversations, c.ConversationIdleTimeout = from.MaxConversations, from.ConversationIdleTimeout
	c.Token, c.TokenFile, c.Tokens = from.Token, from.TokenFile, from.Tokens
	return c
}

// secretFiles are c's files that hold secrets: the token files and the
// TLS certificate and key.
func (c Config) secretFiles() []string {
	var files []string
	for _, f := range []string{c.TokenFile, c.TLSCert, c.TLSKey} {
		if f != "" {
			files = append(files, f)
		}
	}
	for _, src := range c.Tokens {
		if src.File != "" {
			files = append(files, src.File)
		}
	}
	return files
}

// sameTransport reports whether a and b agree on every key that only a new
// start of the server applies: all but those of withLiveKeysOf.
func sameTransport(a, b Config) bool { return a.withLiveKeysOf(b).sameKeys(b) }

// sameKeys reports whether c and o have the same keys: the ones a
// deployment sets (their `dshhost config` form) and the token; the fields
// the serving program sets (streams, logger, workspace, environment) are
// not compared.
func (c Config) sameKeys(o Config) bool {
	a, errA := json.Marshal(c)
	b, errB := json.Marshal(o)
	return errA == nil && errB == nil && bytes.Equal(a, b) && c.Token == o.Token
}

// serveStdio connects the stdio transport; Done is closed when the input
// ends.
func (s *Server) serveStdio(cfg Config) error {
	in, out := cfg.Stdin, cfg.Stdout
	if in == nil {
		in = os.Stdin
	}
	if f, ok := in.(*os.File); ok {
		in = pollableInput(f)
	}
	if out == nil {
		out = os.Stdout
	}
	t, ss, err := s.connectStdio(in, out, int(cfg.MaxMessageBytes), true)
	if err != nil {
		return err
	}
	go func() {
		// Done at the end of the input, not of the session: the drain
		// then answers what was read, or cancels it.
		ended := make(chan struct{})
		go func() { _ = ss.Wait(); close(ended) }()
		select {
		case <-t.inputEnded():
		case <-ended:
		}
		s.end()
	}()
	return nil
}

// connectStdio connects a StdioTransport over in and out, with the
// server's fast calls when fast is set (fast.go).
func (s *Server) connectStdio(in io.Reader, out io.Writer, maxMessageBytes int, fast bool) (*StdioTransport, *mcp.ServerSession, error) {
	t := &StdioTransport{Reader: in, Writer: out, MaxMessageBytes: maxMessageBytes, requests: &s.limits.requests}
	if fast {
		t.fast = newFastCalls(s)
	}
	ss, err := s.srv.Connect(context.Background(), t, nil)
	if t.fast != nil {
		if err != nil {
			t.fast.cancel()
			return nil, nil, err
		}
		t.fast.connected(ss)
		go func() {
			<-t.conn.closed
			t.fast.cancel()
		}()
	}
	return t, ss, err
}

// lifecycle is the server's transport state (plugin.go).
type lifecycle struct {
	http         *http.Server
	guard        *guard       // the HTTP transport's, nil on stdio
	drainTimeout atomic.Int64 // nanoseconds; ≤ 0 takes DefaultDrainTimeout
	url          string

	doneOnce sync.Once
	done     chan struct{}
	shutOnce sync.Once
	shutErr  error
}

// URL returns the HTTP endpoint (`http://HOST:PORT/mcp`), empty on stdio.
func (s *Server) URL() string { return s.url }

// Endpoint says where the server serves: its URL, or "stdio".
func (s *Server) Endpoint() string {
	if s.url == "" {
		return "stdio"
	}
	return s.url
}

// Done is closed when the transport ended by itself: the stdio client
// closed its input, or the HTTP listener failed.
func (s *Server) Done() <-chan struct{} {
	s.doneOnce.Do(s.initDone)
	return s.done
}

func (s *Server) initDone() { s.done = make(chan struct{}) }

func (s *Server) end() {
	s.doneOnce.Do(s.initDone)
	select {
	case <-s.done:
	default:
		close(s.done)
	}
}

// ErrDrainIncomplete reports calls still running when Shutdown's drain
// timeout passed; their contexts were cancelled.
var ErrDrainIncomplete = errors.New("mcp: tool calls were still running at the drain timeout and were cancelled")

// sessionCloseWait bounds how long Shutdown waits for each session to
// close after the drain (a session whose handler never returns is left).
const sessionCloseWait = 2 * time.Second

// Shutdown stops the server: it stops accepting (the HTTP listener closes,
// new calls are refused), waits up to the drain timeout (Config
// DrainTimeout) or ctx for the calls in flight, cancels the contexts of
// those left, closes every session (each emits session/closed once its
// handlers returned), and closes the HTTP server. It returns within about
// drain timeout + 3 s even when a call ignores its context, with
// ErrDrainIncomplete when calls had to be cancelled. Later calls return
// the first result.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutOnce.Do(func() {
		s.stopKeepAlives()
		s.approvals.shutdown() // a question to the user never holds the drain
		timeout := time.Duration(s.drainTimeout.Load())
		if timeout <= 0 {
			timeout = DefaultDrainTimeout
		}
		if !s.limits.drain(ctx, timeout) {
			s.shutErr = ErrDrainIncomplete
		}
		var wg sync.WaitGroup
		for ss := range s.srv.Sessions() {
			wg.Add(1)
			go func(ss *mcp.ServerSession) {
				defer wg.Done()
				_ = ss.Close()
			}(ss)
		}
		closed := make(chan struct{})
		go func() { wg.Wait(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(sessionCloseWait):
		}
		s.closeHTTP()
		s.end()
	})
	return s.shutErr
}
