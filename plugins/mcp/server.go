package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	// NeedRoots, if set, reports whether the front end still wants the
	// client's roots (the workspace is not settled). While it does, a call
	// from a client that supports roots first asks for them (an MCP
	// input request, which the SDK turns into roots/list for older
	// clients) and hands them to UseRoots; a client without roots gets
	// UseRoots(ctx, nil).
	NeedRoots func() bool
	// UseRoots receives the client's roots, in the client's order.
	UseRoots func(ctx context.Context, roots []*mcp.Root)
	// MaxInFlight caps the tool calls that run at once, over all sessions;
	// the rest wait for a slot. 0 means DefaultMaxInFlight (64).
	MaxInFlight int
	// CallTimeout bounds one tool call: past it the call's context is
	// cancelled and its result is `Error: tool call timed out after <n> ms`
	// ({TimeoutError, TIMEOUT}). 0 means DefaultCallTimeout (5 minutes).
	CallTimeout time.Duration
	// ApprovalTimeout bounds the wait for the user's answer to an approval
	// question asked within a call; 0 means DefaultApprovalTimeout
	// (approval.go).
	ApprovalTimeout time.Duration
	// Principal presents the requests that carry no bearer token
	// (conversations.md §1); "" means PrincipalStdio.
	Principal string
	// MaxConversations bounds the live conversations (0:
	// DefaultMaxConversations); ConversationIdleTimeout ends one none of
	// whose calls started for that long (0: DefaultConversationIdleTimeout).
	MaxConversations        int
	ConversationIdleTimeout time.Duration
}

// Server is an MCP front end of one host's tool registry.
type Server struct {
	reg  *tools.Registry
	opts Options
	srv  *mcp.Server

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]string // legacy sessions → internal id
	listed   []string                      // tool names currently mirrored
	mirrored map[string]string             // their descriptions, as JSON
	held     int                           // open Hold calls: changes wait for the last release
	stale    bool                          // a change came in while held

	limits *callLimits  // calls in flight, their timeout and the drain (limits.go)
	calls  sessionCalls // each session's running calls, cancelled when it ends (sessioncalls.go)

	conversations *conversations // the live conversations (conversation.go)
	principal     string         // of requests without a bearer token

	approvals *approvals  // approval questions: key, answers, bound, shutdown (approval.go)
	announcer announcer   // each legacy session's outbox of announcements (notify.go)
	scope     *host.Scope // emits conversation/closed
	lifecycle             // transports and shutdown (plugin.go)
}

// New builds the server for reg and registers its change watcher on s (the
// scope that owns the front end, usually the host's root): tools are
// mirrored now and after every change. Instructions are the registry's prompt
// at this moment.
func New(s *host.Scope, reg *tools.Registry, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	srv := &Server{reg: reg, opts: opts, sessions: map[*mcp.ServerSession]string{}, approvals: newApprovals(opts.ApprovalTimeout), scope: s,
		limits: newCallLimits(opts.MaxInFlight, opts.CallTimeout), principal: cmp.Or(opts.Principal, PrincipalStdio)}
	srv.conversations = newConversations(opts.MaxConversations, opts.ConversationIdleTimeout, srv.closed)
	srv.srv = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Instructions: reg.Prompt(),
		Logger:       sdkLogger(opts.Logger),
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Logging: &mcp.LoggingCapabilities{}},
	})
	srv.srv.AddReceivingMiddleware(toolsOnly)
	if _, err := reg.OnChange(s, srv.sync); err != nil {
		return nil, err
	}
	srv.sync()
	return srv, nil
}

// unserved are the methods of the features the server does not declare
// (prompts, resources, completion), which the SDK would otherwise answer
// with empty lists (conversations.md §4.3: capabilities are declared for
// exactly what is served).
var unserved = map[string]bool{
	"prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/read": true, "resources/templates/list": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"completion/complete": true,
}

// toolsOnly answers a request for an unserved feature -32601, which the
// SDK words `method not found: "<method>"`, and a logging/setLevel to a
// level MCP does not have -32602.
func toolsOnly(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if unserved[method] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
		}
		if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && !logLevels[p.Level] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid log level %q: one of debug, info, notice, warning, error, critical, alert, emergency", p.Level)}
		}
		return next(ctx, method, req)
	}
}

// sdkLogger is log for the SDK: its warnings and errors only. Its INFO
// lines name each session's connection, which a 2026-07-28 request over
// HTTP makes for every request.
func sdkLogger(log *slog.Logger) *slog.Logger {
	return slog.New(atLeast{log.Handler(), slog.LevelWarn})
}

// atLeast is a slog handler that passes records of level min and above.
type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(as []slog.Attr) slog.Handler {
	return atLeast{h.Handler.WithAttrs(as), h.min}
}
func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.Handler.WithGroup(name), h.min}
}

// MCP returns the underlying SDK server, e.g. to connect extra transports.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one transport (stdio for dshhost serve) until the client
// disconnects or ctx is done. The end of ctx is the server's shutdown:
// pending approval questions fail then (EndApprovals), so that they never
// hold it.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	defer context.AfterFunc(ctx, s.approvals.shutdown)()
	return s.srv.Run(ctx, t)
}

// sync mirrors the registry's tool set into the SDK server; the SDK sends
// tools/list_changed to connected clients.
func (s *Server) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held > 0 {
		s.stale = true
		return
	}
	s.syncLocked()
}

// syncLocked mirrors the tool set: tools whose description is unchanged are
// left alone, and the changed ones are added back to back, so one change
// of the set is one debounced tools/list_changed.
func (s *Server) syncLocked() {
	current := s.reg.Tools()
	var names []string
	var changed []*mcp.Tool
	next := map[string]string{}
	for _, t := range current {
		names = append(names, t.Name)
		mt := mcpTool(t)
		desc, err := json.Marshal(mt)
		next[t.Name] = string(desc)
		if err != nil || s.mirrored[t.Name] != string(desc) {
			changed = append(changed, mt)
		}
	}
	s.mirrored = next
	for _, mt := range changed {
		s.srv.AddTool(mt, s.handler(mt.Name))
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

// mcpTool describes t for tools/list: its input schema closed
// (tools.Tool.InputSchema, contract §5.3 [D22]), its summary schema byte for
// byte (tools.Tool.OutputSchema).
func mcpTool(t tools.Tool) *mcp.Tool {
	openWorld := t.OpenWorld
	mt := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: t.InputSchema(),
		Annotations: &mcp.ToolAnnotations{Title: t.Title, ReadOnlyHint: t.ReadOnly, DestructiveHint: &t.Destructive, OpenWorldHint: &openWorld},
	}
	if out := t.OutputSchema(); out != nil {
		mt.OutputSchema = out
	}
	return mt
}

// handler runs one tools/call through the registry in the caller's
// conversation, for the SDK.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, ask, err := s.execute(ctx, name, req)
		switch {
		case err != nil:
			return nil, err
		case ask != nil:
			return ask, nil
		case res.Protocol != nil:
			return nil, protocolError(res.Protocol)
		}
		return toMCP(res), nil
	}
}

// execute runs one tools/call and returns its answer: res, or ask when the
// call needs the client's input first (its roots, or the user's answer to
// a 2026-07-28 client's approval question), which the SDK sends, or the
// JSON-RPC error of a request that names no usable conversation or answer.
// The call itself runs on a goroutine of its own (executeThen), so that
// execute returns at the call timeout whatever the tool does.
func (s *Server) execute(ctx context.Context, name string, req *mcp.CallToolRequest) (res tools.Result, ask *mcp.CallToolResult, err error) {
	answered := make(chan struct{})
	go s.executeThen(ctx, name, req, func(r tools.Result, a *mcp.CallToolResult, e error) {
		res, ask, err = r, a, e
		close(answered)
	}, false)
	<-answered
	return res, ask, err
}

// executeThen runs one tools/call on the calling goroutine and gives
// answer its answer exactly once (see execute): the roots exchange, the
// front end's readiness, the caller's conversation (conversations.md §1)
// and its approval channel (§3), under the call limits
// (callLimits.runThen). It returns once the tool returned; the answer may
// come earlier, at the call timeout. A fast call (fast.go) asks no
// multi round-trip question: the tool's question is answered as a non-nil
// ask with no request state issued, and the fast path hands the request to
// the SDK.
func (s *Server) executeThen(ctx context.Context, name string, req *mcp.CallToolRequest, answer func(tools.Result, *mcp.CallToolResult, error), fast bool) {
	if ask, failed := s.roots(ctx, req); ask != nil || failed != nil {
		if failed != nil {
			answer(*failed, nil, nil)
		} else {
			answer(tools.Result{}, ask, nil)
		}
		return
	}
	if s.opts.Ready != nil {
		if err := s.opts.Ready(); err != nil {
			answer(tools.Result{IsError: true, Content: []tools.Block{tools.TextBlock("Error: " + err.Error())}}, nil, nil)
			return
		}
	}
	principal := s.principalOf(req)
	id, session, byPrincipal, err := s.conversationID(req, principal)
	if err != nil {
		answer(tools.Result{}, nil, err)
		return
	}
	conv, endConv := s.conversations.begin(id, session)
	var endOnce sync.Once
	end := func() { endOnce.Do(endConv) }
	defer end()
	var raw json.RawMessage
	if req.Params != nil {
		raw = req.Params.Arguments
	}
	if req.Session != nil {
		var endCall func()
		ctx, endCall = s.calls.begin(ctx, req.Session.ID())
		defer endCall()
	}
	c := &tools.Conversation{ID: id, Principal: principal, Cwd: s.opts.Cwd()}
	var r *round
	if !byPrincipal { // a principal's own conversation never asks (§3)
		var replay *tools.Result
		if c.Ask, r, replay, err = s.askFunc(ctx, req, conv, name, fast); err != nil || replay != nil {
			if replay != nil {
				answer(*replay, nil, nil)
			} else {
				answer(tools.Result{}, nil, err)
			}
			return
		}
	}
	out := &outbox{}
	exec := &tools.Exec{Conv: c, Report: progressOf(ctx, req, out), Log: logOf(ctx, req, out), Capabilities: capabilitiesOf(req)}
	if err := s.inputOf(req, conv, name, exec); err != nil {
		answer(tools.Result{}, nil, err)
		return
	}
	legacy := legacySession(req)
	var returned atomic.Bool
	s.limits.runThen(ctx, func(ctx context.Context) tools.Result {
		res := s.reg.Execute(ctx, name, raw, exec)
		if res.Input != nil && legacy != nil {
			res = s.askLegacy(ctx, legacy, conv, name, raw, exec, res)
		}
		returned.Store(true)
		return res
	}, func(res tools.Result) {
		if returned.Load() {
			end() // the call is over before its client hears of it, so its next request finds the conversation idle
		}
		if code := res.Code(); code == "TIMEOUT" || code == "ABORTED" {
			exec.Notify("warning", "tool "+name+": "+strings.TrimPrefix(res.Text(), "Error: "))
		}
		out.flush(outboxFlush)
		if r != nil {
			if ask := r.finish(res); ask != nil {
				answer(tools.Result{}, ask, nil)
				return
			}
		}
		if res.Input != nil {
			if fast { // the SDK runs it again and sends the requests
				answer(tools.Result{}, &mcp.CallToolResult{}, nil)
				return
			}
			ask, failed, err := s.inputRequired(req, conv, name, exec.Capabilities, res.Input)
			if err != nil || ask != nil {
				answer(tools.Result{}, ask, err)
				return
			}
			res = failed
		}
		answer(res, nil, nil)
	})
}

// progressOf returns where a call's progress goes: notifications/progress
// with the request's progress token, on the request's own stream (ctx
// names it to the SDK), through the call's outbox; nil when the request
// carries no token or one that is neither a string nor an integer of at
// most progressTokenMax bytes. A notification that cannot be sent (the
// client gone) is dropped.
func progressOf(ctx context.Context, req *mcp.CallToolRequest, out *outbox) tools.ProgressFunc {
	if req.Params == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if !validProgressToken(token) {
		return nil
	}
	ss, ctx := req.Session, context.WithoutCancel(ctx)
	return func(done, total float64, message string) {
		out.post(func() {
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: done, Total: total, Message: message})
		})
	}
}

// progressTokenMax bounds a progress token the server echoes, in bytes.
const progressTokenMax = 256

// validProgressToken reports whether token is one MCP allows (a string or
// an integer) and at most progressTokenMax bytes long.
func validProgressToken(token any) bool {
	switch t := token.(type) {
	case string:
		return len(t) <= progressTokenMax
	case int, int32, int64:
		return true
	case float64:
		return t == math.Trunc(t) && math.Abs(t) < 1<<53
	}
	return false
}

// logLevels are MCP's log levels (RFC 5424's severities), least severe
// first.
var logLevels = map[mcp.LoggingLevel]bool{"debug": true, "info": true, "notice": true, "warning": true,
	"error": true, "critical": true, "alert": true, "emergency": true}

// logOf returns where a call's log messages go: notifications/message to
// the request's client through the call's outbox, which the SDK sends only
// at or above the level the client set (a legacy session's
// logging/setLevel, a 2026-07-28 request's _meta log level). A level that
// is not one of logLevels is sent as "info".
func logOf(ctx context.Context, req *mcp.CallToolRequest, out *outbox) func(level, message string) {
	ss := req.Session
	if ss == nil {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	return func(level, message string) {
		l := mcp.LoggingLevel(level)
		if !logLevels[l] {
			l = "info"
		}
		out.post(func() {
			_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: l, Logger: "dshhost", Data: message})
		})
	}
}

// Announce tells every legacy session that set a log level message at
// level (conversations.md §4.3: a reload's result); the SDK drops it for a
// session below its level. It never waits for a client: each session's
// announcements go through an outbox of its own.
func (s *Server) Announce(level, message string) {
	l := mcp.LoggingLevel(level)
	if !logLevels[l] {
		l = "info"
	}
	s.announcer.announce(s.srv, l, message)
}

// CallTimeout is the call timeout in force (Config.CallTimeout): a config
// reload waits that long at most for the calls of the entries it replaces.
func (s *Server) CallTimeout() time.Duration { return s.limits.limit.Load().timeout }

// askFunc returns the approval channel of a call in conversation conv
// (conversations.md §3): nil when the client did not declare form
// elicitation; elicitation/create within the call for a legacy session;
// otherwise a multi round-trip round, whose request state, when the call
// carries one, is checked first: replay is the stored result of an
// accepted state used again, err the JSON-RPC error of one that can never
// be answered.
func (s *Server) askFunc(ctx context.Context, req *mcp.CallToolRequest, conv *conversation, name string, fast bool) (ask tools.AskFunc, r *round, replay *tools.Result, err error) {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil || (caps.Elicitation.Form == nil && caps.Elicitation.URL != nil) {
		return nil, nil, nil, nil
	}
	if ss := legacySession(req); ss != nil {
		return s.approvals.elicit(ss), nil, nil, nil
	}
	if fast {
		r = &round{probe: true}
		return r.ask, r, nil, nil
	}
	r, replay, err = s.approvals.newRound(ctx, s.conversations, conv, name, req.Params)
	if r == nil {
		return nil, nil, replay, err
	}
	return r.ask, r, nil, nil
}

// modernVersion is the first protocol version without sessions
// (conversations.md §0).
const modernVersion = "2026-07-28"

// legacySession returns the session of req when it began with initialize
// at a protocol before 2026-07-28 (a legacy session, conversations.md §1
// rule 2), else nil. The SDK also fills a session's initialize parameters
// from a 2026-07-28 request's _meta; their version tells the two apart.
func legacySession(req *mcp.CallToolRequest) *mcp.ServerSession {
	ss := req.Session
	if ss == nil {
		return nil
	}
	if ip := ss.InitializeParams(); ip == nil || ip.ProtocolVersion >= modernVersion {
		return nil
	}
	return ss
}

// toMCP converts a registry result (contract §5.4a [D20]): the text content
// once, isError, the tool's summary as structuredContent (never the
// in-process value, which may hold whole files), and in _meta the failure's
// {name, code} ("error") or the tool's metadata fields (e.g. "diffs" or
// "diffsOmitted"). It never looks at the tool's name.
func toMCP(res tools.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: res.IsError, Content: make([]mcp.Content, 0, len(res.Content)), Meta: resultMeta(res)}
	for _, b := range res.Content {
		out.Content = append(out.Content, content(b))
	}
	if !res.IsError && res.Summary != nil {
		out.StructuredContent = res.Summary
	}
	return out
}

// content is a block as MCP content.
func content(b tools.Block) mcp.Content {
	switch b.Type {
	case "image":
		return &mcp.ImageContent{MIMEType: b.MIMEType, Data: b.Data}
	case "audio":
		return &mcp.AudioContent{MIMEType: b.MIMEType, Data: b.Data}
	case "resource":
		return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: b.URI, MIMEType: b.MIMEType, Text: b.Text, Blob: b.Data}}
	}
	return &mcp.TextContent{Text: b.Text}
}

// protocolError is a tool's protocol error as the JSON-RPC error of the
// request.
func protocolError(p *tools.ProtocolError) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: p.Code, Message: p.Message}
	if p.Data != nil {
		e.Data, _ = json.Marshal(p.Data)
	}
	return e
}

// resultMeta returns the _meta fields of a result: the tool's metadata
// when it has any, else the failure's {name, code} under "error", else nil.
func resultMeta(res tools.Result) mcp.Meta {
	if res.Meta != nil {
		return metaFields(res.Meta)
	}
	if res.Error != nil && res.Error.Info != nil {
		return mcp.Meta{"error": res.Error.Info}
	}
	return nil
}

// metaFields returns a tool's metadata as _meta fields: a map as it is,
// any other value through its JSON object form, and a value that is no
// JSON object under the one field "meta".
func metaFields(meta any) mcp.Meta {
	if m, ok := meta.(map[string]any); ok {
		return mcp.Meta(m)
	}
	var fields map[string]any
	if b, err := json.Marshal(meta); err == nil && json.Unmarshal(b, &fields) == nil && fields != nil {
		return mcp.Meta(fields)
	}
	return mcp.Meta{"meta": meta}
}

// Sessions returns the number of legacy MCP sessions that have made calls
// and are still connected.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Conversations returns the number of live conversations
// (conversations.md §2).
func (s *Server) Conversations() int { return s.conversations.live() }
