package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-go/dsh/internal/jsonstring"
	"github.com/dsh-go/dsh/plugins/tools"
)

// directCalls serves a stdio session's ordinary tools/call requests without
// the SDK's request path (issue 10: the go-sdk encodes a result, then
// compacts the text content's JSON and the whole result's again, half of a
// warm read's CPU). A direct call runs exactly what the SDK's handler runs
// (Server.executeThen: the session, its calls, the limits, the registry)
// and its result is encoded once, as the SDK would encode it (the same
// fields, in the same order, byte for byte; direct_internal_test.go
// compares the two).
//
// It takes a request only when nothing but the call itself is at stake,
// and leaves the rest to the SDK:
//   - the session is initialised on a protocol before the multi round-trip
//     one (2026-07-28), whose results carry input requests and a resultType;
//   - the params hold only name, arguments and _meta, and _meta is an
//     object without per-request protocol fields (`io.modelcontextprotocol/...`);
//   - the tool is one the SDK lists (else the SDK's "unknown tool" error);
//   - the workspace does not wait for the client's roots.
//
// notifications/cancelled for a direct call cancels its context, as the
// SDK does for its own; the call is still answered (`tool call aborted`).
type directCalls struct {
	srv     *Server
	session atomic.Pointer[mcp.ServerSession] // set once the SDK connected the transport

	ctx    context.Context // the calls' parent: ends with the connection
	cancel context.CancelFunc

	mu      sync.Mutex
	running map[jsonrpc.ID]*directCall // the direct calls not yet answered
	taken   atomic.Int64               // calls served so far

	jobs chan *directJob // to an idle worker (unbuffered: taken only by one waiting)
	idle atomic.Int32    // workers waiting on jobs

	inline *inlineWatch // calls run on the reader (runInline)
}

func newDirectCalls(srv *Server) *directCalls {
	ctx, cancel := context.WithCancel(context.Background())
	return &directCalls{srv: srv, ctx: ctx, cancel: cancel, running: map[jsonrpc.ID]*directCall{}, jobs: make(chan *directJob),
		inline: newInlineWatch(ctx.Done())}
}

// directCall is one direct call until it is answered.
type directCall struct {
	cancel context.CancelFunc
}

// methodCallTool and notificationCancelled are the MCP methods a direct
// call handles.
const (
	methodCallTool        = "tools/call"
	notificationCancelled = "notifications/cancelled"
)

// take is given every message the connection read (already counted as
// unanswered; fresh is false when its id was already unanswered) and
// reports whether it took it; what it did not take goes to the SDK.
//
// A request whose id is that of an unanswered call is dropped without an
// answer, as the SDK's jsonrpc2 drops it ("request ID already in use"):
// take drops those of direct calls, and leaves the others, whose id the SDK
// knows, to the SDK.
//
// A call it takes comes back as job (a cancellation it takes has none):
// the reader runs it on its own goroutine when no other input waits
// (runInline), else hands it to a worker (dispatch).
func (d *directCalls) take(c *stdioConn, msg jsonrpc.Message, fresh bool) (job *directJob, taken bool) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil, false
	}
	if req.IsCall() && d.unanswered(req.ID) {
		d.srv.opts.Logger.Warn("dropped a request whose id is that of a call in flight", "method", req.Method, "id", req.ID.Raw())
		return nil, true
	}
	switch {
	case req.Method == notificationCancelled && !req.IsCall():
		return nil, d.cancelCall(req.Params)
	case req.Method != methodCallTool || !req.IsCall():
		return nil, false
	}
	ss := d.session.Load()
	if ss == nil || legacySession(&mcp.CallToolRequest{Session: ss}) == nil {
		return nil, false
	}
	name, args, ok := plainCallParams(req.Params)
	if !fresh || !ok || !d.srv.lists(name) {
		return nil, false
	}
	if d.srv.opts.NeedRoots != nil && d.srv.opts.NeedRoots() {
		return nil, false
	}
	ctx, cancel := context.WithCancel(d.ctx)
	call := &directCall{cancel: cancel}
	d.mu.Lock()
	d.running[req.ID] = call
	d.mu.Unlock()
	d.taken.Add(1)
	return &directJob{ctx: ctx, call: call, c: c, ss: ss, id: req.ID, name: name, args: args}, true
}

// dispatch hands job to an idle worker, or to a new one.
func (d *directCalls) dispatch(job *directJob) {
	select {
	case d.jobs <- job: // an idle worker takes it
	default:
		go d.work(job)
	}
}

// runInline runs job on the calling goroutine, the connection's reader,
// and reports whether that goroutine reads on: when job outlives
// inlineGrace, takeOver starts another reader (so that a cancellation or a
// further request is read while job runs) and runInline returns false once
// job is done. Handing every call to a worker cost a wake-up of a second
// thread per call, about a fifth of a warm list's CPU (issue 10, measured
// against GOMAXPROCS=1); a short call now costs none (inlineWatch).
func (d *directCalls) runInline(job *directJob, takeOver func()) (readOn bool) {
	return d.inline.run(func() { d.serve(job) }, takeOver)
}

// directJob is one direct call.
type directJob struct {
	ctx  context.Context
	call *directCall
	c    *stdioConn
	ss   *mcp.ServerSession
	id   jsonrpc.ID
	name string
	args json.RawMessage
}

// maxIdleWorkers bounds the workers that wait for the next direct call
// once theirs is answered; the others end. A worker's stack has grown to
// what a tool needs, so reusing it spares every call the stack growth of a
// fresh goroutine (about 7% of a small call's CPU).
const maxIdleWorkers = 4

// work serves job, then the jobs handed to it while it waits idle, until
// the connection ends or enough workers already wait.
func (d *directCalls) work(job *directJob) {
	for {
		d.serve(job)
		if d.idle.Add(1) > maxIdleWorkers {
			d.idle.Add(-1)
			return
		}
		select {
		case job = <-d.jobs:
			d.idle.Add(-1)
		case <-d.ctx.Done():
			d.idle.Add(-1)
			return
		}
	}
}

// serve runs one direct call and writes its answer.
func (d *directCalls) serve(job *directJob) {
	ctx, c, ss, id, name, args := job.ctx, job.c, job.ss, job.id, job.name, job.args
	defer job.call.cancel()
	defer d.answered(id, job.call)
	d.srv.executeThen(ctx, name, &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: name, Arguments: args}}, func(res tools.Result, ask *mcp.CallToolResult, err error) {
		// The id is free once answered, as the SDK frees its own
		// before writing: the client may reuse it at once, while the
		// tool may still run (the call timed out).
		d.answered(id, job.call)
		switch {
		case err != nil:
			// Unreachable under take's conditions (no conversation
			// handle, no request state); answered rather than dropped.
			d.answerError(c, id, err.Error())
			return
		case ask != nil:
			// Unreachable under take's conditions (no roots wanted, no
			// multi round-trip client); answered rather than dropped.
			d.answerError(c, id, "internal error: the call needs the client's input, which a direct call cannot ask for")
			return
		}
		buf := framePool.Get().(*[]byte)
		frame, err := appendAnswer((*buf)[:0], id, res)
		if err != nil {
			framePool.Put(buf)
			d.answerError(c, id, "internal error: cannot encode the result: "+err.Error())
			return
		}
		_ = c.writeAnswer(frame, id)
		if cap(frame) <= maxPooledFrame {
			*buf = frame[:0]
			framePool.Put(buf)
		}
	})
}

// unanswered reports whether id is that of a direct call not yet answered.
func (d *directCalls) unanswered(id jsonrpc.ID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.running[id]
	return ok
}

// answered forgets call, the direct call of id, unless a later call took
// the id already.
func (d *directCalls) answered(id jsonrpc.ID, call *directCall) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.running[id] == call {
		delete(d.running, id)
	}
}

// answerError answers request id with a JSON-RPC internal error.
func (d *directCalls) answerError(c *stdioConn, id jsonrpc.ID, message string) {
	frame, err := encodeFrame(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: message}})
	if err == nil {
		_ = c.writeAnswer(frame, id)
	}
}

// maxPooledFrame bounds the answers whose buffer is kept for the next
// call: a 60 KB read is, a grep of many megabytes is not.
const maxPooledFrame = 1 << 20

// framePool holds the buffers of direct answers: a warm read's answer is
// about 60 KB, allocated (and zeroed) anew for every call otherwise.
var framePool = sync.Pool{New: func() any { return new([]byte) }}

// appendAnswer appends the JSON-RPC answer to request id carrying res, its
// whole line: `{"jsonrpc":"2.0","id":<id>,"result":<result>}` and a newline.
func appendAnswer(dst []byte, id jsonrpc.ID, res tools.Result) ([]byte, error) {
	rawID, err := json.Marshal(id.Raw())
	if err != nil {
		return nil, err
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, rawID...)
	dst = append(dst, `,"result":`...)
	if dst, err = appendResult(dst, res); err != nil {
		return nil, err
	}
	return append(dst, "}\n"...), nil
}

// cancelCall cancels the direct call a notifications/cancelled names and
// reports whether there was one.
func (d *directCalls) cancelCall(params json.RawMessage) bool {
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
	d.mu.Lock()
	call, ok := d.running[id]
	d.mu.Unlock()
	if ok {
		call.cancel()
	}
	return ok
}

// protocolMetaPrefix starts the _meta keys of the per-request protocol
// (SEP-2575: `io.modelcontextprotocol/protocolVersion` and its siblings),
// which the SDK handles.
const protocolMetaPrefix = "io.modelcontextprotocol/"

// sdkMeta reports whether a _meta key leaves the request to the SDK's
// path: a per-request protocol field, or the conversation handle (whose
// checks and conversation the SDK's handler derives).
func sdkMeta(key string) bool {
	return strings.HasPrefix(key, protocolMetaPrefix) || key == ConversationMetaKey
}

// plainCallParams returns the tool name and arguments of tools/call params
// that hold nothing else but a _meta without per-request protocol fields;
// ok is false for any other params (the SDK then handles the request).
func plainCallParams(raw json.RawMessage) (name string, args json.RawMessage, ok bool) {
	if name, args, ok, decided := scanCallParams(raw); decided {
		return name, args, ok
	}
	return plainCallParamsJSON(raw)
}

// plainCallParamsJSON is plainCallParams with encoding/json, for the
// params scanCallParams leaves undecided.
func plainCallParamsJSON(raw json.RawMessage) (name string, args json.RawMessage, ok bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return "", nil, false
	}
	for key, value := range fields {
		switch key {
		case "name":
			if json.Unmarshal(value, &name) != nil {
				return "", nil, false
			}
		case "arguments":
			args = value
		case "_meta":
			// The SDK refuses a _meta that is no object (invalid params)
			// and reads its keys unescaped (`io.modelcontextprotocol\u002f…`
			// is a protocol field too).
			var meta map[string]json.RawMessage
			if json.Unmarshal(value, &meta) != nil {
				return "", nil, false
			}
			for k := range meta {
				if sdkMeta(k) {
					return "", nil, false
				}
			}
		default:
			return "", nil, false
		}
	}
	return name, args, name != ""
}

// lists reports whether the SDK lists the tool name (the mirrored set).
func (s *Server) lists(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.mirrored[name]
	return ok
}

// appendResult appends res encoded as the SDK encodes toMCP(res) for a
// client before the multi round-trip protocol: `_meta`, `content` (text
// blocks), `structuredContent` (the summary, on success), `isError` (when
// true), in that order, each value marshalled once.
func appendResult(dst []byte, res tools.Result) ([]byte, error) {
	dst = append(dst, '{')
	if meta := resultMeta(res); len(meta) > 0 {
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
	return append(dst, '}'), nil
}
