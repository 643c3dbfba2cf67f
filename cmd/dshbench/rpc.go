package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// server is one MCP server process spoken to over stdio with raw,
// newline-delimited JSON-RPC: no SDK on the client side, so what is timed is
// the server and the pipe.
type server struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	id   int
	meta string // the _meta member every request carries at 2026-07-28; empty: a legacy session
}

// modernMeta is the _meta of a 2026-07-28 request of the harness: the
// per-request protocol fields and a conversation handle.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.github.dsh-go/conversation":"dshbench"}`

// startModern starts argv in dir as a 2026-07-28 server: no handshake, the
// protocol fields on every request.
func startModern(name, dir string, argv ...string) (*server, error) {
	s, err := launch(name, dir, argv...)
	if err == nil {
		s.meta = modernMeta
	}
	return s, err
}

// launch starts argv in dir with its stdio piped.
func launch(name, dir string, argv ...string) (*server, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &server{name: name, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// startServer starts argv in dir and runs the MCP initialize handshake.
func startServer(name, dir string, argv ...string) (*server, error) {
	s, err := launch(name, dir, argv...)
	if err != nil {
		return nil, err
	}
	if _, _, err := s.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"dshbench","version":"1"}}`); err != nil {
		s.stop()
		return nil, fmt.Errorf("%s: initialize: %w", name, err)
	}
	if _, err := io.WriteString(s.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// rpcResponse is what the harness reads of a response.
type rpcResponse struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// call runs tools/call name(args) and returns the response line's size in
// bytes and the time from writing the request to reading the whole
// response. A tool error (isError) is an error here: every benchmarked call
// must succeed.
func (s *server) call(name, args string) (int, time.Duration, error) {
	params := `{"name":` + strconv.Quote(name) + `,"arguments":` + args + `}`
	n, d, resp, err := s.requestResponse("tools/call", params)
	if err != nil {
		return 0, 0, err
	}
	if resp.Result != nil && resp.Result.IsError {
		text := ""
		if len(resp.Result.Content) > 0 {
			text = resp.Result.Content[0].Text
		}
		return 0, 0, fmt.Errorf("%s %s: tool error: %s", s.name, name, text)
	}
	return n, d, nil
}

func (s *server) request(method, params string) (int, time.Duration, error) {
	n, d, _, err := s.requestResponse(method, params)
	return n, d, err
}

func (s *server) requestResponse(method, params string) (int, time.Duration, *rpcResponse, error) {
	s.id++
	id := strconv.Itoa(s.id)
	if s.meta != "" && strings.HasPrefix(params, "{") {
		params = "{" + s.meta + map[bool]string{true: "", false: ","}[params == "{}"] + params[1:]
	}
	req := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + "}\n"
	start := time.Now()
	if _, err := io.WriteString(s.in, req); err != nil {
		return 0, 0, nil, err
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return 0, 0, nil, fmt.Errorf("%s: reading the response: %w", s.name, err)
		}
		elapsed := time.Since(start)
		var resp rpcResponse
		if err := json.Unmarshal(line, &resp); err != nil {
			return 0, 0, nil, fmt.Errorf("%s: bad JSON-RPC line: %w", s.name, err)
		}
		if resp.ID == nil || string(bytes.TrimSpace(*resp.ID)) != id {
			continue // a notification, or a request of the server's
		}
		if resp.Error != nil {
			return 0, 0, nil, fmt.Errorf("%s: %s: %s", s.name, method, resp.Error.Message)
		}
		return len(line), elapsed, &resp, nil
	}
}

// rss returns the server's current and peak resident set size in bytes,
// from /proc/<pid>/status (VmRSS, VmHWM).
func (s *server) rss() (cur, peak int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0, 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		field, rest, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		switch field {
		case "VmRSS":
			cur = kb << 10
		case "VmHWM":
			peak = kb << 10
		}
	}
	return cur, peak
}

// cpu returns the server's CPU time so far (user + system), from
// /proc/<pid>/stat, in clock ticks of 10 ms.
func (s *server) cpu() time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; count fields after it.
	rest := string(b[bytes.LastIndexByte(b, ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// stop closes stdin (a clean EOF) and waits a bounded time for the process,
// then kills it.
func (s *server) stop() {
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

var errSkipped = errors.New("skipped")
