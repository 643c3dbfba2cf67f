package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bounds of a stdio connection (docs/mcp.md "Limits and timeouts").
const (
	// DefaultMaxMessageBytes is the largest JSON-RPC message a
	// StdioTransport reads, 64 MiB: a write of a file of several MB fits
	// many times over.
	DefaultMaxMessageBytes = 64 << 20
	// maxUnanswered is how many requests of a stdio client are served at
	// once: the requests read past it wait (parked) until an answer was
	// written, so a client that never reads its output cannot make the
	// server hold ever more results.
	maxUnanswered = 256
	// maxUnsentBytes bounds the bytes of answers waiting to be written the
	// same way.
	maxUnsentBytes = 16 << 20
	// maxParked and maxParkedBytes bound the requests waiting to be served:
	// past them no further input is read. Until then the client's answers
	// to the server's own requests (roots, elicitation) are read and
	// delivered, whatever waits.
	maxParked      = 1024
	maxParkedBytes = 16 << 20
)

// StdioTransport is an mcp.Transport over a byte stream with newline-delimited
// JSON-RPC, one message per line, that survives bad input and bounds what
// a client can make it hold: where the SDK's IOTransport ends the session on
// the first line it cannot decode, this one answers it and reads on.
//
//   - A line that is not JSON gets a -32700 "parse error" reply with id null;
//     one that is JSON but not a JSON-RPC message (`42`, `[]`, `{}`, a batch)
//     gets -32600 "invalid request". Blank lines are skipped. Batches are
//     refused: MCP 2025-06-18 removed them.
//   - A line longer than MaxMessageBytes is discarded up to its newline and
//     answered with -32600; memory stays bounded by MaxMessageBytes.
//   - A request id that is neither a string nor an integer of magnitude at
//     most 2^53−1 (the integers every JSON peer reads exactly) gets -32600
//     `invalid request id: <reason>` with id null; a request whose id is
//     that of one still unanswered gets -32600 `duplicate request id: a
//     request with this id is still in flight`, id null.
//   - While maxUnanswered requests are being served, or maxUnsentBytes of
//     answers wait to be written, further requests wait; past maxParked
//     waiting requests (or maxParkedBytes) no further input is read. The
//     client's responses and notifications are never held behind them.
//   - A request read while the server shuts down is answered -32000 `the
//     server is shutting down` and not run.
//   - A response whose result the SDK has already encoded is written as it
//     is, not encoded a second time inside the JSON-RPC envelope.
//
// Reader is never closed (stdin cannot be unblocked portably; the reading
// goroutine ends with the stream), Writer is not closed either; Close only
// ends the connection.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxMessageBytes bounds one message; 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int

	requests *tracker   // the server's, when the plugin serves it: counts unanswered requests for the drain
	fast     *fastCalls // the server's, when the plugin serves it: tools/call on the fast path (fast.go)
	conn     *stdioConn // set by Connect
}

// Connect starts reading and returns the connection. It is called once per
// transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxMessageBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	c := &stdioConn{w: t.Writer, incoming: make(chan stdioRead), closed: make(chan struct{}),
		ended: make(chan struct{}), requests: t.requests, fast: t.fast, pending: map[jsonrpc.ID]bool{}, changed: make(chan struct{})}
	t.conn = c
	if t.fast != nil {
		t.fast.conn = c
	}
	go c.readLoop(bufio.NewReaderSize(t.Reader, 64<<10), limit)
	return c, nil
}

// inputEnded is closed when the input stream ended (EOF or a read error).
func (t *StdioTransport) inputEnded() <-chan struct{} { return t.conn.ended }

// stdioRead is one message for Read.
type stdioRead struct {
	msg jsonrpc.Message
}

// stdioConn is one StdioTransport connection. At the end of the input,
// Read reports it only once every request already read has been answered
// (or the connection closed): the SDK cancels the requests in flight when
// Read fails, and a client that writes its requests and closes its end
// (`printf ... | dshhost serve`) still gets every answer.
type stdioConn struct {
	writeMu sync.Mutex
	w       io.Writer

	incoming  chan stdioRead
	closed    chan struct{}
	closeOnce sync.Once
	ended     chan struct{} // closed when readLoop returns

	initialized bool // an initialize request was read (readLoop's own)

	fast     *fastCalls // optional: takes the calls it serves itself (fast.go)
	requests *tracker   // optional: counts the unanswered requests for the drain

	mu          sync.Mutex          // guards the fields below
	pending     map[jsonrpc.ID]bool // unanswered requests (parked ones too) → counted in requests
	writing     int                 // answers taken off pending and not yet written
	unsent      int                 // bytes of answers being written or waiting to be
	parked      []parkedRequest     // requests read and waiting to be served, in order
	parkedBytes int
	eof         error         // the input's end (or read error), once read
	changed     chan struct{} // closed (and replaced) whenever the fields above change
}

// parkedRequest is one request waiting to be served, and the size of its
// line.
type parkedRequest struct {
	msg  jsonrpc.Message
	size int
}

// readLoop reads lines until the stream ends or the connection closes:
// requests park for the feeder, everything else is delivered at once, and
// the lines that are no message are answered.
func (c *stdioConn) readLoop(r *bufio.Reader, limit int) {
	defer close(c.ended)
	go c.feed()
	for {
		if !c.waitUntil(func() bool { return len(c.parked) < maxParked && c.parkedBytes < maxParkedBytes }) {
			return
		}
		line, tooLong, err := readLine(r, limit)
		switch {
		case tooLong:
			c.reject(jsonrpc.CodeInvalidRequest, "invalid request: message longer than "+strconv.Itoa(limit)+" bytes")
		case len(bytes.TrimSpace(line)) > 0:
			if !c.take(line) {
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF // a clean end of the client's stream
			}
			c.mu.Lock()
			c.eof = err
			c.changeLocked()
			c.mu.Unlock()
			return
		}
	}
}

// take handles one line; false when the connection closed.
func (c *stdioConn) take(line []byte) bool {
	msg, code, why := decodeLine(line)
	if msg == nil {
		c.reject(code, why)
		return true
	}
	if c.reinitialize(msg) {
		return true
	}
	req, isCall := msg.(*jsonrpc.Request)
	if !isCall || !req.IsCall() {
		if c.fast != nil && c.fast.take(msg) {
			return true
		}
		return c.deliver(stdioRead{msg: msg})
	}
	if c.requests != nil && c.requests.isDraining() {
		c.answerError(req.ID, codeShuttingDown, "the server is shutting down")
		return true
	}
	if !c.track(msg) {
		c.reject(jsonrpc.CodeInvalidRequest, "duplicate request id: a request with this id is still in flight")
		return true
	}
	c.mu.Lock()
	c.parked = append(c.parked, parkedRequest{msg: msg, size: len(line)})
	c.parkedBytes += len(line)
	c.changeLocked()
	c.mu.Unlock()
	return true
}

// codeShuttingDown is the JSON-RPC error of a request read during the
// shutdown (the implementation-defined server error range).
const codeShuttingDown = -32000

// feed serves the parked requests in order, each once fewer than
// maxUnanswered are being served and fewer than maxUnsentBytes of answers
// wait to be written.
func (c *stdioConn) feed() {
	for {
		var next parkedRequest
		if !c.waitUntil(func() bool {
			served := len(c.pending) + c.writing - len(c.parked)
			return len(c.parked) > 0 && served < maxUnanswered && c.unsent < maxUnsentBytes
		}) {
			return
		}
		c.mu.Lock()
		next = c.parked[0]
		c.parked[0] = parkedRequest{}
		c.parked = c.parked[1:]
		c.parkedBytes -= next.size
		c.changeLocked()
		c.mu.Unlock()
		if c.fast != nil && c.fast.take(next.msg) {
			continue
		}
		if !c.deliver(stdioRead{msg: next.msg}) {
			return
		}
	}
}

// waitUntil waits until cond, evaluated with c.mu held, holds; false when
// the connection closed first.
func (c *stdioConn) waitUntil(cond func() bool) bool {
	for {
		c.mu.Lock()
		ok, changed := cond(), c.changed
		c.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-c.closed:
			return false
		}
	}
}

// changeLocked wakes every waiter on the connection's state; c.mu is held.
func (c *stdioConn) changeLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// deliver hands r to Read; false when the connection closed first.
func (c *stdioConn) deliver(r stdioRead) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// readLine returns the next line without its newline, at most limit bytes.
// A longer line is consumed to its newline and reported as tooLong, without
// keeping more than limit bytes. err is the stream's error after the line
// (io.EOF at the end; a final line without a newline is still returned).
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+2 { // +2: "\r\n" at most
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'})
		if len(line) > limit {
			return nil, true, err
		}
		return line, false, err
	}
}

// decodeLine decodes one line as a JSON-RPC message, or returns the error
// code and message of its reply:
//   - -32700 when the line is not one JSON value (bad JSON, or a value
//     followed by anything: `{..}{..}`, `{..} x`, `{..}\r{..}`);
//   - -32600 when it is JSON but no message: not an object (`42`, `[]`, a
//     batch), nested deeper than the decoders allow, an id that is no id
//     (checkID), or a shape the SDK refuses.
//
// The one pass that reads the raw id also decodes an ordinary request
// (plainRequest); any other line is decoded again by the SDK's decoder,
// which allocates 64 KB a message (65 µs, a tenth of a warm read).
func decodeLine(line []byte) (jsonrpc.Message, int64, string) {
	trimmed := bytes.TrimSpace(line)
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &probe); err != nil {
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr):
			return nil, jsonrpc.CodeInvalidRequest, "invalid request: a message must be a JSON object (batches are not supported)"
		case strings.Contains(err.Error(), "exceeded max depth"):
			return nil, jsonrpc.CodeInvalidRequest, "invalid request: the message is nested too deeply"
		}
		return nil, jsonrpc.CodeParseError, "parse error: the line is not valid JSON"
	}
	if id, ok := probe["id"]; ok && probe["method"] != nil { // a response's id is the SDK's to match
		if why := checkID(id); why != "" {
			return nil, jsonrpc.CodeInvalidRequest, "invalid request id: " + why
		}
	}
	if req, ok := plainRequest(probe, trimmed); ok {
		return req, 0, ""
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return msg, 0, ""
}

// plainRequest returns the request the fields of line are, exactly as
// jsonrpc.DecodeMessage returns it, when they have the ordinary shape:
// only jsonrpc "2.0", an id (a string or an integer, checked already), a
// method of printable ASCII without escapes and params that are not null,
// and at most 1,000 brackets (the SDK's decoder bounds nesting).
// stdio_internal_test.go holds the two equal.
func plainRequest(fields map[string]json.RawMessage, line []byte) (*jsonrpc.Request, bool) {
	for key := range fields {
		switch key {
		case "jsonrpc", "id", "method", "params":
		default:
			return nil, false
		}
	}
	method, ok := plainString(fields["method"])
	if !ok || method == "" || string(fields["jsonrpc"]) != `"2.0"` || string(fields["params"]) == "null" ||
		bytes.Count(line, []byte{'{'})+bytes.Count(line, []byte{'['}) > 1000 {
		return nil, false
	}
	var id jsonrpc.ID
	if raw, present := fields["id"]; present {
		var v any
		if s, isString := plainString(raw); isString {
			v = s
		} else if raw[0] == '"' {
			return nil, false // a string with escapes: the SDK's reading
		} else {
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil {
				return nil, false
			}
			v = f // the SDK reads a number into an any: a float64
		}
		var err error
		if id, err = jsonrpc.MakeID(v); err != nil {
			return nil, false
		}
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: fields["params"]}, true
}

// plainString returns the value of a JSON string of printable ASCII without
// escapes, the strings every decoder reads alike.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	for _, b := range s {
		if b < 0x20 || b == '"' || b == '\\' || b >= 0x7f {
			return "", false
		}
	}
	return string(s), true
}

// maxExactID is the largest magnitude of an integer id: 2^53−1, the
// integers a JSON number read as a double keeps exactly.
const maxExactID = 1<<53 - 1

// checkID returns why a raw JSON-RPC id cannot be echoed back exactly, or
// "" for a string or an integer of magnitude at most 2^53−1.
func checkID(raw json.RawMessage) string {
	switch {
	case len(raw) == 0:
		return "it is empty"
	case raw[0] == '"':
		var s string
		if !utf8.Valid(raw) || (json.Unmarshal(raw, &s) == nil && strings.ContainsRune(s, utf8.RuneError) &&
			!bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`)) && !bytes.Contains(raw, []byte("\uFFFD"))) {
			return "a string with invalid UTF-8 or a lone surrogate (read as U+FFFD) would come back changed"
		}
		return ""
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		if bytes.ContainsAny(raw, ".eE") {
			return string(raw) + " is not an integer"
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > maxExactID || n < -maxExactID {
			return string(raw) + " is beyond ±9007199254740991 (2^53−1), the integers every JSON peer reads exactly"
		}
		return ""
	}
	return "an id must be a string or an integer, not " + string(raw)
}

// reject writes an error reply with id null (JSON-RPC 2.0 §5 for a request
// whose id cannot be known, or cannot be answered without confusing the
// client). A failure to write ends nothing here: the next Write reports it.
func (c *stdioConn) reject(code int64, message string) {
	msg, _ := json.Marshal(message)
	frame := `{"jsonrpc":"2.0","id":null,"error":{"code":` + strconv.FormatInt(code, 10) + `,"message":` + string(msg) + "}}\n"
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, _ = io.WriteString(c.w, frame)
}

// answerError answers request id with a JSON-RPC error, the request not
// tracked (it was never served).
func (c *stdioConn) answerError(id jsonrpc.ID, code int64, message string) {
	frame, err := encodeFrame(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: message}})
	if err == nil {
		_ = c.writeFrame(frame, id, false)
	}
}

// reinitialize answers a second initialize request itself, with -32600
// and its id (the SDK would answer error code 0), and reports whether msg
// was one.
func (c *stdioConn) reinitialize(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != "initialize" {
		return false
	}
	if !c.initialized {
		c.initialized = true
		return false
	}
	if req.IsCall() {
		frame, err := encodeFrame(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: the session is already initialized"}})
		if err == nil {
			c.writeMu.Lock()
			_, _ = c.w.Write(frame)
			c.writeMu.Unlock()
		}
	}
	return true
}

// track records a request that needs an answer; it reports false when
// msg is one whose id is unanswered already.
func (c *stdioConn) track(msg jsonrpc.Message) (fresh bool) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.pending[req.ID]; dup {
		return false
	}
	c.pending[req.ID] = c.requests != nil && c.requests.begin()
	return true
}

// answering frees the id of the request an answer is about to be
// written for: the client may send it again as soon as it reads the
// answer. The request stays unanswered (for the end of the input and the
// drain) until answered runs.
func (c *stdioConn) answering(id jsonrpc.ID) (counted, found bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	counted, found = c.pending[id]
	if found {
		delete(c.pending, id)
		c.writing++
		c.changeLocked()
	}
	return counted, found
}

// answered ends a request whose answer was written (or failed to be).
func (c *stdioConn) answered(counted, found bool) {
	if !found {
		return
	}
	c.mu.Lock()
	c.writing--
	c.changeLocked()
	c.mu.Unlock()
	if counted {
		c.requests.end()
	}
}

// Read returns the next message, the input's end (io.EOF, or its read
// error) once every request read was answered, or an error once the
// connection is closed or ctx is done. Until the end is reported it keeps
// taking messages: a fast call may hand its request over after the input
// ended (fast.go).
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		c.mu.Lock()
		eof, done, changed := c.eof, len(c.pending)+c.writing == 0, c.changed
		c.mu.Unlock()
		if eof != nil && done {
			return nil, eof
		}
		select {
		case r := <-c.incoming:
			return r.msg, nil
		case <-changed:
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write writes msg as one line. A successful response carries the result
// the SDK already encoded, spliced into the envelope as it is.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	frame, err := encodeFrame(msg)
	if err != nil {
		return err
	}
	var id jsonrpc.ID
	resp, isResponse := msg.(*jsonrpc.Response)
	if isResponse {
		id = resp.ID
	}
	return c.writeFrame(frame, id, isResponse)
}

// writeAnswer writes frame, the whole line of the answer to request id.
func (c *stdioConn) writeAnswer(frame []byte, id jsonrpc.ID) error {
	return c.writeFrame(frame, id, true)
}

// writeFrame writes one line, counted as unsent until it is written; an
// answer forgets its request once written (a closed connection has
// forgotten its requests already).
func (c *stdioConn) writeFrame(frame []byte, id jsonrpc.ID, answers bool) error {
	var counted, found bool
	if answers {
		counted, found = c.answering(id)
	}
	c.mu.Lock()
	c.unsent += len(frame)
	c.mu.Unlock()
	c.writeMu.Lock()
	err := c.writeLocked(frame)
	c.writeMu.Unlock()
	c.mu.Lock()
	c.unsent -= len(frame)
	c.changeLocked()
	c.mu.Unlock()
	c.answered(counted, found)
	return err
}

// writeLocked writes frame unless the connection is closed; writeMu is held.
func (c *stdioConn) writeLocked(frame []byte) error {
	select {
	case <-c.closed:
		return errors.New("mcp: write on a closed connection")
	default:
	}
	_, err := c.w.Write(frame)
	return err
}

// encodeFrame returns msg's line, newline included.
func encodeFrame(msg jsonrpc.Message) ([]byte, error) {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil && len(resp.Result) > 0 && resp.ID.IsValid() &&
		bytes.IndexByte(resp.Result, '\n') < 0 {
		id, err := json.Marshal(resp.ID.Raw())
		if err != nil {
			return nil, err
		}
		frame := make([]byte, 0, len(resp.Result)+len(id)+40)
		frame = append(frame, `{"jsonrpc":"2.0","id":`...)
		frame = append(frame, id...)
		frame = append(frame, `,"result":`...)
		frame = append(frame, resp.Result...)
		return append(frame, "}\n"...), nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Close ends the connection: Read returns, Write fails, and the requests
// left unanswered stop counting. It is safe to call more than once.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.mu.Lock()
		defer c.mu.Unlock()
		for id, counted := range c.pending {
			if counted {
				c.requests.end()
			}
			delete(c.pending, id)
		}
		c.parked, c.parkedBytes = nil, 0
		c.changeLocked()
	})
	return nil
}

// SessionID is empty: a stdio connection has no session id.
func (c *stdioConn) SessionID() string { return "" }
