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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageBytes is the largest JSON-RPC message a StdioTransport
// reads, 64 MiB: a write of a file of several MB fits many times over.
const DefaultMaxMessageBytes = 64 << 20

// StdioTransport is an mcp.Transport over a byte stream with newline-delimited
// JSON-RPC, one message per line, that survives bad input: where the SDK's
// IOTransport ends the session on the first line it cannot decode, this one
// answers it and reads on.
//
//   - A line that is not JSON gets a -32700 "parse error" reply with id null;
//     one that is JSON but not a JSON-RPC message (`42`, `[]`, `{}`, a batch)
//     gets -32600 "invalid request". Blank lines are skipped. Batches are
//     refused: MCP 2025-06-18 removed them.
//   - A line longer than MaxMessageBytes is discarded up to its newline and
//     answered with -32600; memory stays bounded by MaxMessageBytes.
//   - A response whose result the SDK has already encoded is written as it
//     is, not encoded a second time inside the JSON-RPC envelope (that pass
//     re-compacted every byte of a read's text).
//
// Reader is never closed (stdin cannot be unblocked portably; the reading
// goroutine ends with the stream), Writer is not closed either; Close only
// ends the connection. Contract-wise it is the framing of issue 12.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxMessageBytes bounds one message; 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int

	requests *tracker     // the server's, when the plugin serves it: counts unanswered requests for the drain
	direct   *directCalls // the server's, when the plugin serves it: tools/call without the SDK (direct.go)
	conn     *stdioConn   // set by Connect
}

// Connect starts reading and returns the connection. It is called once per
// transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxMessageBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	c := &stdioConn{w: t.Writer, incoming: make(chan stdioRead), closed: make(chan struct{}),
		ended: make(chan struct{}), requests: t.requests, direct: t.direct, pending: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
	t.conn = c
	go c.readLoop(bufio.NewReaderSize(t.Reader, 64<<10), limit)
	return c, nil
}

// inputEnded is closed when the input stream ended (EOF or a read error).
func (t *StdioTransport) inputEnded() <-chan struct{} { return t.conn.ended }

type stdioRead struct {
	msg jsonrpc.Message
	err error
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

	direct   *directCalls        // optional: takes the requests it serves itself (direct.go)
	requests *tracker            // optional: counts the unanswered requests for the drain
	pmu      sync.Mutex          // guards pending
	pending  map[jsonrpc.ID]bool // unanswered requests → counted in requests
	answered chan struct{}       // signalled when pending shrinks
}

// readLoop reads lines until the stream ends or the connection closes,
// delivering messages and answering the lines that are not. A direct call
// may run on this goroutine and hand the reading to another readLoop
// (directCalls.runInline); ended is closed by the last one.
func (c *stdioConn) readLoop(r *bufio.Reader, limit int) {
	if c.readLines(r, limit) {
		close(c.ended)
	}
}

// readLines is readLoop's loop; it reports false when it handed the
// reading over instead of reaching the end.
func (c *stdioConn) readLines(r *bufio.Reader, limit int) (ended bool) {
	for {
		line, tooLong, err := readLine(r, limit)
		switch {
		case tooLong:
			c.reject(jsonrpc.CodeInvalidRequest, "invalid request: message longer than "+strconv.Itoa(limit)+" bytes")
		case len(bytes.TrimSpace(line)) > 0:
			if msg, code, why := decodeLine(line); msg != nil {
				if c.reinitialize(msg) {
					continue
				}
				fresh := c.track(msg)
				if c.direct != nil {
					if job, taken := c.direct.take(c, msg, fresh); job != nil {
						if r.Buffered() > 0 { // more input waits: run in parallel
							c.direct.dispatch(job)
						} else if !c.direct.runInline(job, func() { go c.readLoop(r, limit) }) {
							return false
						}
						continue
					} else if taken {
						continue
					}
				}
				if !c.deliver(stdioRead{msg: msg}) {
					return true
				}
			} else {
				c.reject(code, why)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF // a clean end of the client's stream
			}
			c.deliver(stdioRead{err: err})
			return true
		}
	}
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

// decodeLine decodes one line as a JSON-RPC message, or returns the
// error code and message of its reply:
//   - -32700 when the line is not one JSON value (bad JSON, or a value
//     followed by anything: `{..}{..}`, `{..} x`, `{..}\r{..}`);
//   - -32600 when it is JSON but no message: not an object (`42`, `[]`, a
//     batch), nested deeper than the decoders allow, an id that is neither
//     a string nor an integer (`1.5`, `null`, `{}`), or a shape the SDK
//     refuses.
//
// An ordinary request is decoded in one pass (decodeRequest, decode.go);
// any other line is scanned twice: once by the standard decoder (one
// value, and its raw id), once by the SDK's.
func decodeLine(line []byte) (jsonrpc.Message, int64, string) {
	trimmed := bytes.TrimSpace(line)
	if req, ok := decodeRequest(trimmed); ok {
		return req, 0, ""
	}
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
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
	if probe.ID != nil && !validID(probe.ID) {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: an id must be a string or an integer"
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return msg, 0, ""
}

// validID reports whether a raw id is a JSON string or integer.
func validID(raw json.RawMessage) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		return true
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		return !bytes.ContainsAny(raw, ".eE")
	}
	return false
}

// reject writes an error reply with id null (JSON-RPC 2.0 §5 for a request
// whose id cannot be known). A failure to write ends nothing here: the next
// Write reports it.
func (c *stdioConn) reject(code int64, message string) {
	msg, _ := json.Marshal(message)
	frame := `{"jsonrpc":"2.0","id":null,"error":{"code":` + strconv.FormatInt(code, 10) + `,"message":` + string(msg) + "}}\n"
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, _ = io.WriteString(c.w, frame)
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
// msg is one whose id is unanswered already (the SDK drops it).
func (c *stdioConn) track(msg jsonrpc.Message) (fresh bool) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return true
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if _, dup := c.pending[req.ID]; dup {
		return false
	}
	c.pending[req.ID] = c.requests != nil && c.requests.begin()
	return true
}

// answer forgets the request msg answers, if any.
func (c *stdioConn) answer(msg jsonrpc.Message) {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.answerID(resp.ID)
	}
}

// answerID forgets the request id once it is answered.
func (c *stdioConn) answerID(id jsonrpc.ID) {
	c.pmu.Lock()
	counted, found := c.pending[id]
	delete(c.pending, id)
	c.pmu.Unlock()
	if counted {
		c.requests.end()
	}
	if found {
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
}

func (c *stdioConn) unanswered() int {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	return len(c.pending)
}

// Read returns the next message, io.EOF at the end of the stream (once
// every request read was answered), or an error once the connection is
// closed or ctx is done.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case r := <-c.incoming:
		for r.err != nil && c.unanswered() > 0 {
			select {
			case <-c.answered:
			case <-c.closed:
				return nil, io.EOF
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
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
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	err = c.writeLocked(frame)
	c.answer(msg) // a closed connection has forgotten its requests already
	return err
}

// writeAnswer writes frame, the whole line of the answer to request id.
func (c *stdioConn) writeAnswer(frame []byte, id jsonrpc.ID) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	err := c.writeLocked(frame)
	c.answerID(id)
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
		c.pmu.Lock()
		defer c.pmu.Unlock()
		for id, counted := range c.pending {
			if counted {
				c.requests.end()
			}
			delete(c.pending, id)
		}
	})
	return nil
}

// SessionID is empty: a stdio connection has no session id.
func (c *stdioConn) SessionID() string { return "" }
