package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport is the MCP stdio transport with robust framing: each line
// is one JSON-RPC message. Unlike the SDK's IOTransport, which closes the
// session on the first message it cannot decode, a line that is not JSON
// gets a -32700 (parse error) reply and one that is JSON but no JSON-RPC
// message (`42`, `[]`, a batch) a -32600 (invalid request) reply, both with
// id null, and the session goes on; a line longer than MaxMessageBytes is
// discarded up to the next newline, never held whole, and answered with a
// -32600 reply. Empty lines are skipped.
type StdioTransport struct {
	// Reader and Writer are the streams (the process's stdin and stdout
	// for dshhost serve). Reader is never closed.
	Reader io.Reader
	Writer io.Writer
	// MaxMessageBytes bounds one line, newline excluded; 0 means
	// DefaultMaxMessageBytes.
	MaxMessageBytes int64

	requests *tracker      // the server's, when served by the plugin: counts unanswered requests
	conn     *lineConn     // set by Connect
	ended    chan struct{} // closed with the input, made by Connect
}

// Connect starts reading and returns the connection. It never fails.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxMessageBytes
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	c := &lineConn{w: t.Writer, max: max, in: make(chan jsonrpc.Message), eof: make(chan struct{}), closed: make(chan struct{}),
		requests: t.requests, pending: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
	t.conn = c
	go c.read(bufio.NewReaderSize(t.Reader, 64<<10))
	return c, nil
}

// inputEnded is closed when the input stream ended (EOF or a read error).
func (t *StdioTransport) inputEnded() <-chan struct{} { return t.conn.eof }

// lineConn is one stdio connection. At the end of the input, Read returns
// io.EOF only once every request already read has been answered (or the
// connection closed): the SDK cancels the requests in flight when Read
// fails, and a client that writes its requests and closes its end (`printf
// ... | dshhost serve`) still gets every answer.
type lineConn struct {
	w   io.Writer
	max int64
	wmu sync.Mutex

	requests *tracker            // optional: counts the unanswered requests for the drain
	pmu      sync.Mutex          // guards pending
	pending  map[jsonrpc.ID]bool // unanswered requests → counted in requests
	answered chan struct{}       // signalled when pending shrinks

	in     chan jsonrpc.Message
	eof    chan struct{} // closed when the reader ended; readErr says why
	err    error
	closed chan struct{}
	once   sync.Once
}

// read feeds decoded lines to Read until the stream ends or the
// connection closes.
func (c *lineConn) read(r *bufio.Reader) {
	defer close(c.eof)
	for {
		line, err := c.line(r)
		if len(line) > 0 || errors.Is(err, errTooLong) {
			msg, reply := c.decode(line, err)
			if reply != nil {
				if werr := c.writeRaw(reply); werr != nil {
					c.err = werr
					return
				}
			} else {
				c.track(msg)
				select {
				case c.in <- msg:
				case <-c.closed:
					c.err = io.EOF
					return
				}
			}
		}
		if err != nil && !errors.Is(err, errTooLong) {
			c.err = err
			return
		}
	}
}

// errTooLong marks a line that was discarded for its length.
var errTooLong = errors.New("message too long")

// line returns the next line without its newline (and trailing CR and
// spaces). A line over c.max is read to its end and dropped: it returns
// errTooLong. At the end of the stream it returns the last partial line
// and the reader's error.
func (c *lineConn) line(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	over := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !over {
			if int64(len(buf)+len(chunk)) > c.max+2 { // room for "\r\n"
				over, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			if over {
				return nil, errTooLong
			}
			return bytes.TrimSpace(buf), err
		}
		if over {
			return nil, errTooLong
		}
		line := bytes.TrimSpace(buf)
		if int64(len(line)) > c.max {
			return nil, errTooLong
		}
		return line, nil
	}
}

// decode returns the message of one line, or the error reply to write
// instead.
func (c *lineConn) decode(line []byte, err error) (jsonrpc.Message, []byte) {
	if errors.Is(err, errTooLong) {
		return nil, errorReply(jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: message over %d bytes discarded", c.max))
	}
	msg, derr := jsonrpc.DecodeMessage(line)
	if derr == nil {
		return msg, nil
	}
	if !json.Valid(line) {
		return nil, errorReply(jsonrpc.CodeParseError, "Parse error: the line is not JSON")
	}
	return nil, errorReply(jsonrpc.CodeInvalidRequest, "Invalid Request: "+derr.Error())
}

// errorReply is a JSON-RPC error response with id null.
func errorReply(code int64, message string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": message}})
	return b
}

// track records a request that needs an answer.
func (c *lineConn) track(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if _, dup := c.pending[req.ID]; !dup {
		c.pending[req.ID] = c.requests != nil && c.requests.begin()
	}
}

// answer forgets the request msg answers, if any.
func (c *lineConn) answer(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return
	}
	c.pmu.Lock()
	counted, found := c.pending[resp.ID]
	delete(c.pending, resp.ID)
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

func (c *lineConn) unanswered() int {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	return len(c.pending)
}

// Read returns the next message, io.EOF once the stream ended and every
// request read was answered.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.in:
		return msg, nil
	case <-c.eof:
		for c.unanswered() > 0 {
			select {
			case <-c.answered:
			case <-c.closed:
				return nil, io.EOF
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if c.err == nil || errors.Is(c.err, io.EOF) {
			return nil, io.EOF
		}
		return nil, c.err
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write writes msg as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeRaw(b)
	c.answer(msg)
	return err
}

// writeRaw writes one line. It works after Close too: the output stream
// stays open, so the answers to messages read before the input ended are
// still delivered.
func (c *lineConn) writeRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Close ends the connection; a Read waiting for input returns io.EOF, and
// the requests left unanswered stop counting.
func (c *lineConn) Close() error {
	c.once.Do(func() {
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

// SessionID is empty: stdio has one session and no id on the wire.
func (c *lineConn) SessionID() string { return "" }
