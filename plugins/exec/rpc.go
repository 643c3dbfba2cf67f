package exec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// Protocol is the protocol name sent in initialize.
const Protocol = "dsh-plugin/1"

// request is a JSON-RPC 2.0 request (ID > 0) or notification (ID 0) from
// the host, one line on the child's stdin.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// message is any line the child writes: a response to one of the host's
// requests (ID, and Result or Error), or a request or notification of its
// own (Method), which the host does not serve.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Error returns `the plugin answered error <code>: <message>`.
func (e *rpcError) Error() string {
	return fmt.Sprintf("the plugin answered error %d: %s", e.Code, e.Message)
}

// responseID returns a response's id as the host numbered its request,
// and false when it is not a positive integer.
func (m *message) responseID() (int64, bool) {
	id, err := strconv.ParseInt(string(bytes.TrimSpace(m.ID)), 10, 64)
	return id, err == nil && id > 0
}

// maxLine is the bound of one line from the child (plugin-protocol.md §3):
// a longer one is a broken answer. A variable so tests can lower it.
var maxLine = 16 << 20

// readLine returns the next line of r without its line feed (a last line
// without one included). A line over max bytes is skipped to its end and
// reported with tooLong; err is io.EOF at the end of input.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the line feed
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(line) > 0 && !tooLong:
			return line, false, nil
		case err != nil:
			if tooLong && err == io.EOF {
				return nil, true, nil
			}
			return nil, false, err
		}
		if tooLong {
			return nil, true, nil
		}
		return bytes.TrimSuffix(line, []byte("\n")), false, nil
	}
}
