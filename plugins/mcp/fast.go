package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-go/dsh/internal/jsonstring"
	"github.com/dsh-go/dsh/plugins/tools"
)

// fastCalls answers a stdio connection's plain tools/call requests without
// the SDK's request path, in both eras. The SDK encodes a result and then
// compacts its JSON twice more, and hands each request across three
// goroutines: a warm read of a 2,000-line file took 1.7 ms that way
// against 0.5 ms here, where the official server takes about 2 ms, and the
// goal is a quarter of it (docs/benchmarks.md). A fast call runs exactly
// what the SDK's handler runs (Server.executeThen: the conversation, its
// approval channel, the limits, the registry) and encodes its result once,
// byte for byte as the SDK would (fast_internal_test.go holds the two
// equal in both eras).
//
// It takes a request only when nothing but the call is at stake, and
// leaves the rest to the SDK:
//   - params of name, arguments and _meta only; a _meta without a progress
//     token and, for a legacy session, without per-request protocol fields;
//   - for a session that did not begin with initialize, the 2026-07-28
//     fields: protocolVersion "2026-07-28", clientCapabilities an object,
//     clientInfo at most; no log level;
//   - a listed tool, and a workspace that waits for no roots.
//
// A call whose answer is not a plain result (an invalid conversation
// handle, an approval question for a 2026-07-28 client) changed nothing
// (tools.AskFunc's rule) and goes to the SDK after all, which runs it
// again and answers it.
type fastCalls struct {
	srv  *Server
	conn *stdioConn // set by StdioTransport.Connect

	taken atomic.Int64 // calls served so far

	mu      sync.Mutex
	session *mcp.ServerSession                // set once the SDK connected the transport
	running map[jsonrpc.ID]context.CancelFunc // the fast calls not yet answered
	ctx     context.Context                   // the calls' parent: ends with the connection
	cancel  context.CancelFunc
}

func newFastCalls(srv *Server) *fastCalls {
	ctx, cancel := context.WithCancel(context.Background())
	return &fastCalls{srv: srv, running: map[jsonrpc.ID]context.CancelFunc{}, ctx: ctx, cancel: cancel}
}

// The methods a fast call handles.
const (
	methodCallTool        = "tools/call"
	notificationCancelled = "notifications/cancelled"
)

// protocolMetaPrefix starts the _meta keys of the per-request protocol
// (SEP-2575: `io.modelcontextprotocol/protocolVersion` and its siblings).
const protocolMetaPrefix = "io.modelcontextprotocol/"

// fastCall is one call the fast path took.
type fastCall struct {
	msg    *jsonrpc.Request
	name   string
	args   json.RawMessage
	meta   mcp.Meta
	modern bool
	ss     *mcp.ServerSession
}

// take is given every message the connection read (a request already
// counted as unanswered) and reports whether it took it; what it does not
// take goes to the SDK.
func (f *fastCalls) take(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return false
	}
	if req.Method == notificationCancelled && !req.IsCall() {
		return f.cancelCall(req.Params)
	}
	if req.Method != methodCallTool || !req.IsCall() {
		return false
	}
	f.mu.Lock()
	ss := f.session
	f.mu.Unlock()
	if ss == nil {
		return false
	}
	call, ok := f.plain(req, ss)
	if !ok || !f.srv.lists(call.name) || (f.srv.opts.NeedRoots != nil && f.srv.opts.NeedRoots()) {
		return false
	}
	ctx, cancel := context.WithCancel(f.ctx)
	f.mu.Lock()
	f.running[req.ID] = cancel
	f.mu.Unlock()
	f.taken.Add(1)
	go f.serve(ctx, call)
	return true
}

// plain returns the call of req when its params are of the plain shape
// take describes.
func (f *fastCalls) plain(req *jsonrpc.Request, ss *mcp.ServerSession) (fastCall, bool) {
	call := fastCall{msg: req, ss: ss}
	var fields map[string]json.RawMessage
	if json.Unmarshal(req.Params, &fields) != nil {
		return call, false
	}
	for key, value := range fields {
		switch key {
		case "name":
			if json.Unmarshal(value, &call.name) != nil || call.name == "" {
				return call, false
			}
		case "arguments":
			call.args = value
		case "_meta":
			if string(value) == "null" {
				continue
			}
			if json.Unmarshal(value, &call.meta) != nil || call.meta == nil {
				return call, false
			}
		default:
			return call, false
		}
	}
	if _, progress := call.meta["progressToken"]; progress {
		return call, false
	}
	call.modern = legacySession(&mcp.CallToolRequest{Session: ss}) == nil
	for key := range call.meta {
		if !strings.HasPrefix(key, protocolMetaPrefix) {
			continue
		}
		if !call.modern {
			return call, false
		}
		switch key {
		case mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo:
		default:
			return call, false
		}
	}
	if call.modern {
		// The SDK's own reading of the fields: a value it cannot decode is
		// its error to answer.
		r := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: call.meta}}
		_, info := call.meta[mcp.MetaKeyClientInfo]
		if call.meta[mcp.MetaKeyProtocolVersion] != modernVersion || r.ClientCapabilities() == nil || (info && r.ClientInfo() == nil) {
			return call, false
		}
	}
	return call, true
}

// serve runs one fast call and writes its answer, or hands the request to
// the SDK when the answer is not a plain result.
func (f *fastCalls) serve(ctx context.Context, call fastCall) {
	id := call.msg.ID
	defer f.forget(id)
	req := &mcp.CallToolRequest{Session: call.ss, Params: &mcp.CallToolParamsRaw{Name: call.name, Arguments: call.args, Meta: call.meta}}
	f.srv.executeThen(ctx, call.name, req, func(res tools.Result, ask *mcp.CallToolResult, err error) {
		f.forget(id) // the id is free once answered, as the SDK frees its own before writing
		if ask != nil || err != nil {
			f.conn.deliver(stdioRead{msg: call.msg})
			return
		}
		var frame []byte
		if res.Protocol != nil {
			frame, err = encodeFrame(&jsonrpc.Response{ID: id, Error: protocolError(res.Protocol)})
		} else {
			frame, err = appendAnswer(make([]byte, 0, answerSize(res)), id, res, f.serverInfo(call.modern))
		}
		if err != nil {
			frame, _ = encodeFrame(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: cannot encode the result: " + err.Error()}})
		}
		_ = f.conn.writeAnswer(frame, id)
	}, true)
}

// serverInfo is what a 2026-07-28 result's _meta names the server as, or
// nil for a legacy session's result.
func (f *fastCalls) serverInfo(modern bool) *mcp.Implementation {
	if !modern {
		return nil
	}
	return &mcp.Implementation{Name: f.srv.opts.Name, Version: f.srv.opts.Version}
}

// forget ends the bookkeeping of the fast call id.
func (f *fastCalls) forget(id jsonrpc.ID) {
	f.mu.Lock()
	cancel := f.running[id]
	delete(f.running, id)
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// cancelCall cancels the fast call a notifications/cancelled names and
// reports whether there was one.
func (f *fastCalls) cancelCall(params json.RawMessage) bool {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return false
	}
	f.mu.Lock()
	cancel, ok := f.running[id]
	f.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// connected records the SDK's session of the connection.
func (f *fastCalls) connected(ss *mcp.ServerSession) {
	f.mu.Lock()
	f.session = ss
	f.mu.Unlock()
}

// lists reports whether the SDK lists the tool name (the mirrored set).
func (s *Server) lists(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.mirrored[name]
	return ok
}

// answerSize is room for the answer of res: its texts with some escapes,
// its data in base64, and the envelope, so that the frame is allocated
// once.
func answerSize(res tools.Result) int {
	n := 512
	for _, b := range res.Content {
		n += len(b.Text) + len(b.Text)/8 + len(b.Data)*4/3 + len(b.URI)
	}
	return n
}

// appendAnswer appends the JSON-RPC answer to request id carrying res, its
// whole line: `{"jsonrpc":"2.0","id":<id>,"result":<result>}` and a newline.
func appendAnswer(dst []byte, id jsonrpc.ID, res tools.Result, server *mcp.Implementation) ([]byte, error) {
	rawID, err := json.Marshal(id.Raw())
	if err != nil {
		return nil, err
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, rawID...)
	dst = append(dst, `,"result":`...)
	if dst, err = appendResult(dst, res, server); err != nil {
		return nil, err
	}
	return append(dst, "}\n"...), nil
}

// appendResult appends res encoded as the SDK encodes toMCP(res): `_meta`,
// `content` (text blocks), `structuredContent` (the summary, on success),
// `isError` (when true), in that order, each value marshalled once. For a
// 2026-07-28 request (server set) the SDK adds the server's identity to
// `_meta` and `"resultType":"complete"` at the end.
func appendResult(dst []byte, res tools.Result, server *mcp.Implementation) ([]byte, error) {
	dst = append(dst, '{')
	meta := resultMeta(res)
	if server != nil {
		meta = maps.Clone(meta)
		if meta == nil {
			meta = mcp.Meta{}
		}
		meta["io.modelcontextprotocol/serverInfo"] = server
	}
	if len(meta) > 0 {
		m, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		dst = append(dst, `"_meta":`...)
		dst = append(dst, m...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"content":[`...)
	for i, b := range res.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		if b.Type != "text" { // the SDK's own encoding of the other kinds
			m, err := json.Marshal(content(b))
			if err != nil {
				return nil, err
			}
			dst = append(dst, m...)
			continue
		}
		dst = append(dst, `{"type":"text","text":`...)
		dst = jsonstring.Append(dst, b.Text)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if !res.IsError && res.Summary != nil {
		dst = append(dst, `,"structuredContent":`...)
		if a, ok := res.Summary.(tools.JSONAppender); ok {
			var err error
			if dst, err = a.AppendJSON(dst); err != nil {
				return nil, err
			}
		} else {
			m, err := json.Marshal(res.Summary)
			if err != nil {
				return nil, err
			}
			dst = append(dst, m...)
		}
	}
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	if server != nil {
		dst = append(dst, `,"resultType":"complete"`...)
	}
	return append(dst, '}'), nil
}
