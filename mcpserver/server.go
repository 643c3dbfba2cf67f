package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/tools"
)

// Options configure a Server.
type Options struct {
	// Name and Version identify the server to clients.
	Name, Version string
	// Logger receives the server's logs; nil means slog.Default().
	Logger *slog.Logger
	// Cwd returns the working directory of new calls' sessions (the
	// workspace). Required.
	Cwd func() string
	// Ready, if set, is asked before every call; a non-nil error fails the
	// call with that error's text (e.g. no workspace yet).
	Ready func() error
	// OnInitialized, if set, runs (in its own goroutine) after a session
	// finishes initializing, e.g. to read the client's roots.
	OnInitialized func(ctx context.Context, ss *mcp.ServerSession)
}

// Server is an MCP front end of one host's tool registry.
type Server struct {
	reg  *tools.Registry
	opts Options
	srv  *mcp.Server

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*tools.Session
	listed   []string // tool names currently mirrored
}

// New builds the server for reg and registers its change watcher on s (the
// scope that owns the front end, usually the host's root): tools are
// mirrored now and after every change. Instructions are the registry's prompt
// at this moment.
func New(s *host.Scope, reg *tools.Registry, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	srv := &Server{reg: reg, opts: opts, sessions: map[*mcp.ServerSession]*tools.Session{}}
	srv.srv = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Instructions:       reg.Prompt(),
		Logger:             opts.Logger,
		Capabilities:       &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		InitializedHandler: srv.initialized,
	})
	if _, err := reg.OnChange(s, srv.sync); err != nil {
		return nil, err
	}
	srv.sync()
	return srv, nil
}

// MCP returns the underlying SDK server, e.g. to connect extra transports.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one transport (stdio for dshhost serve) until the client
// disconnects or ctx is done.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.srv.Run(ctx, t) }

// sync mirrors the registry's tool set into the SDK server; the SDK sends
// tools/list_changed to connected clients.
func (s *Server) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	current := s.reg.Tools()
	var names []string
	for _, t := range current {
		names = append(names, t.Name)
		s.srv.AddTool(mcpTool(t), s.handler(t.Name))
	}
	var gone []string
	for _, n := range s.listed {
		if !slices.Contains(names, n) {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	s.listed = names
}

// mcpTool describes t for tools/list, its schemas passed through byte for
// byte.
func mcpTool(t tools.Tool) *mcp.Tool {
	mt := &mcp.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: json.RawMessage(t.Parameters),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, DestructiveHint: &t.Destructive},
	}
	if len(mt.InputSchema.(json.RawMessage)) == 0 {
		mt.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	if len(t.Output) > 0 {
		mt.OutputSchema = json.RawMessage(t.Output)
	}
	return mt
}

// handler runs one tools/call through the registry in the caller's
// session.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if s.opts.Ready != nil {
			if err := s.opts.Ready(); err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Error: " + err.Error()}}}, nil
			}
		}
		var raw json.RawMessage
		if req.Params != nil {
			raw = req.Params.Arguments
		}
		res := s.reg.Execute(ctx, name, raw, &tools.Exec{Session: s.session(req.Session)})
		return toMCP(res), nil
	}
}

// toMCP converts a registry result: text content, isError, the structured
// value, and in _meta the failure's {name, code} ("error") or the tool's
// metadata fields (e.g. "diffs").
func toMCP(res tools.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: res.IsError}
	for _, b := range res.Content {
		out.Content = append(out.Content, &mcp.TextContent{Text: b.Text})
	}
	if !res.IsError {
		out.StructuredContent = res.Value
	}
	if res.Error != nil && res.Error.Info != nil {
		out.Meta = mcp.Meta{"error": res.Error.Info}
	}
	if res.Meta != nil {
		var fields map[string]any
		if b, err := json.Marshal(res.Meta); err == nil && json.Unmarshal(b, &fields) == nil {
			out.Meta = mcp.Meta(fields)
		} else {
			out.Meta = mcp.Meta{"meta": res.Meta}
		}
	}
	return out
}

// session returns the tools.Session of an MCP session, made on first use:
// each MCP session has its own identity, hence its own read-before-edit
// state.
func (s *Server) session(ss *mcp.ServerSession) *tools.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[ss]; ok {
		sess.Cwd = s.opts.Cwd()
		return &tools.Session{ID: sess.ID, Cwd: sess.Cwd}
	}
	sess := &tools.Session{ID: "mcp-" + uuid.NewString(), Cwd: s.opts.Cwd()}
	s.sessions[ss] = sess
	return &tools.Session{ID: sess.ID, Cwd: sess.Cwd}
}

// initialized starts the per-session bookkeeping: the session is forgotten
// when it ends, and OnInitialized runs.
func (s *Server) initialized(ctx context.Context, req *mcp.InitializedRequest) {
	ss := req.Session
	s.session(ss)
	go func() {
		_ = ss.Wait()
		s.mu.Lock()
		delete(s.sessions, ss)
		s.mu.Unlock()
	}()
	if s.opts.OnInitialized != nil {
		go s.opts.OnInitialized(context.WithoutCancel(ctx), ss)
	}
}

// Sessions returns the number of sessions the server currently tracks.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}
