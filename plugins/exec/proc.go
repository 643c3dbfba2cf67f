package exec

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dsh-go/dsh/events/wire"
)

// proc is one run of the child: its process, the pipes, the requests
// waiting for an answer, and the goroutines that read its stdout and
// stderr, write its stdin and wait for its exit.
type proc struct {
	cmd    *osexec.Cmd
	pid    int
	log    *slog.Logger
	q      *queue
	encode func(notification) (json.RawMessage, error)

	out     chan []byte   // request lines for the writer
	ready   chan struct{} // closed once initialize succeeded: notifications may flow
	closing chan struct{} // closed by stop: flush, close stdin
	done    chan struct{} // closed when the process has exited and stdout is read
	waited  chan struct{} // closed when Wait returned

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan reply
	dead    bool
	cause   string // why the run ended, set before done is closed
	tail    string // the last line of stderr, for causes

	readyOnce, closeOnce sync.Once
}

// reply is the answer to one request: its result, or why there is none.
type reply struct {
	result json.RawMessage
	err    error
}

// errRun is a request that failed because the run ended or the child
// broke the protocol: Cause is the §2 cause.
type errRun struct{ cause string }

func (e *errRun) Error() string { return e.cause }

// stopGrace is how long stop waits after closing stdin before SIGTERM, and
// after SIGTERM before SIGKILL (plugin-protocol.md §3).
const stopGrace = 2 * time.Second

// startProc starts cfg's command. The caller exchanges initialize, then
// calls markReady.
func startProc(cfg Config, log *slog.Logger, q *queue, encode func(notification) (json.RawMessage, error)) (*proc, error) {
	path := cfg.Command[0]
	if strings.Contains(path, "/") {
		if !filepath.IsAbs(path) && cfg.Dir != "" {
			path = filepath.Join(cfg.Dir, path)
		}
	} else if lp, err := osexec.LookPath(path); err == nil {
		path = lp
	} else {
		return nil, fmt.Errorf("cannot start %q: %w", cfg.Command[0], errors.Unwrap(err))
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return nil, err
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return nil, err
	}
	cmd := &osexec.Cmd{Path: path, Args: cfg.Command, Dir: cfg.Dir, Env: environ(cfg.Env),
		Stdin: stdinR, Stdout: stdoutW, Stderr: stderrW,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	err = cmd.Start()
	closeAll(stdinR, stdoutW, stderrW) // the child's ends
	if err != nil {
		closeAll(stdinW, stdoutR, stderrR)
		return nil, fmt.Errorf("cannot start %q: %w", cfg.Command[0], unwrapPath(err))
	}
	p := &proc{cmd: cmd, pid: cmd.Process.Pid, log: log.With("pid", cmd.Process.Pid), q: q, encode: encode,
		out: make(chan []byte), ready: make(chan struct{}), closing: make(chan struct{}),
		done: make(chan struct{}), waited: make(chan struct{}), pending: map[int64]chan reply{}}
	stderrDone := make(chan struct{})
	go p.readStderr(stderrR, stderrDone)
	go p.write(stdinW)
	go func() {
		err := cmd.Wait()
		<-stderrDone // the last words of a crash are in the cause
		p.mu.Lock()
		p.cause = exitCause(err, p.tail)
		p.mu.Unlock()
		close(p.waited)
		// A grandchild may hold stdout open: read what is there, then stop.
		_ = stdoutR.SetReadDeadline(time.Now().Add(stopGrace))
	}()
	go p.read(stdoutR)
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// unwrapPath drops the *PathError's "fork/exec <path>: " prefix.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// environ is the child's environment: the server's PATH, HOME and LANG,
// then extra.
func environ(extra map[string]string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// exitCause words a run's end: `the process exited: exit status 1`, with
// the last line of its stderr when it wrote one.
func exitCause(err error, tail string) string {
	cause := "the process exited"
	switch {
	case err == nil:
		cause += " with status 0"
	default:
		cause += ": " + err.Error()
	}
	if tail != "" {
		cause += " (its stderr ended: " + tail + ")"
	}
	return cause
}

// markReady lets notifications flow: initialize was answered.
func (p *proc) markReady() { p.readyOnce.Do(func() { close(p.ready) }) }

// call sends method with params and waits for the answer, ctx or the end of
// the run. A run that ended, or a broken answer, is an *errRun; a JSON-RPC
// error object is an *rpcError; ctx's end is ctx.Err().
func (p *proc) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := p.nextID.Add(1)
	line, err := wire.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	ch := make(chan reply, 1)
	p.mu.Lock()
	if p.dead {
		cause := p.cause
		p.mu.Unlock()
		return nil, &errRun{cause}
	}
	p.pending[id] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
	}()
	select {
	case p.out <- line:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.done:
		return nil, &errRun{p.endCause()}
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.done:
		select {
		case r := <-ch:
			return r.result, r.err
		default:
		}
		return nil, &errRun{p.endCause()}
	}
}

// endCause returns why the run ended (empty while it runs).
func (p *proc) endCause() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cause
}

// failPending answers every waiting request with err.
func (p *proc) failPending(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, ch := range p.pending {
		select {
		case ch <- reply{err: err}:
		default:
		}
		delete(p.pending, id)
	}
}

// read routes each line of stdout to the request it answers, until EOF;
// then, once the process has exited, it ends the run.
func (p *proc) read(stdout *os.File) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, tooLong, err := readLine(r, maxLine)
		if err != nil {
			break
		}
		if tooLong {
			p.log.Warn("a line from the plugin is over the bound; its pending requests fail", "bound", maxLine)
			p.failPending(&errRun{(&wire.BrokenAnswer{Problem: fmt.Sprintf("a line over %d bytes", maxLine)}).Error()})
			continue
		}
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		p.route(line)
	}
	// A child that closed its stdout but runs on can no longer answer:
	// end the run, so that it is restarted.
	t := time.NewTimer(stopGrace)
	select {
	case <-p.waited:
	case <-t.C:
		p.log.Warn("the plugin closed its stdout but did not exit; killing it")
		p.kill()
		<-p.waited
	}
	t.Stop()
	_ = stdout.Close()
	p.mu.Lock()
	p.dead = true
	cause := p.cause
	p.mu.Unlock()
	p.failPending(&errRun{cause})
	close(p.done)
}

// route hands one line to the request it answers.
func (p *proc) route(line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		p.log.Warn("the plugin wrote a line that is not JSON; its pending requests fail", "line", wire.PreviewLine(line))
		p.failPending(&errRun{(&wire.BrokenAnswer{Problem: "not JSON: " + wire.PreviewLine(line)}).Error()})
		return
	}
	if m.Method != "" {
		if len(m.ID) > 0 {
			// A request of the child's: the host serves none.
			resp, _ := wire.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID,
				"error": rpcError{Code: -32601, Message: "method not found: the host serves no requests"}})
			go func() {
				select {
				case p.out <- resp:
				case <-p.done:
				}
			}()
		}
		return
	}
	id, ok := m.responseID()
	if !ok {
		p.log.Debug("the plugin answered an id the host never sent", "id", string(m.ID))
		return
	}
	p.mu.Lock()
	ch := p.pending[id]
	delete(p.pending, id)
	p.mu.Unlock()
	if ch == nil {
		p.log.Debug("a late answer, its request is gone", "id", id)
		return
	}
	switch {
	case m.Error != nil:
		ch <- reply{err: m.Error}
	case len(m.Result) == 0:
		ch <- reply{err: &errRun{(&wire.BrokenAnswer{Problem: "a response needs a result or an error"}).Error()}}
	default:
		ch <- reply{result: m.Result}
	}
}

// write is the only writer of stdin: requests as they come, and the
// queued notifications once initialize was answered, each flushed before
// the next request so that a notification queued before a request reaches
// the child first. On stop it flushes and closes stdin.
func (p *proc) write(stdin *os.File) {
	defer stdin.Close()
	w := bufio.NewWriterSize(stdin, 64<<10)
	var notify <-chan struct{}
	ready := p.ready
	failed := false
	put := func(line []byte) {
		if failed {
			return
		}
		_, _ = w.Write(line)
		if err := w.WriteByte('\n'); err != nil {
			failed = true
		}
	}
	flushQueue := func() {
		if notify == nil {
			return
		}
		for _, n := range p.q.Take() {
			line, err := p.encode(n)
			if err != nil {
				p.log.Warn("cannot encode a notification", "method", n.method, "err", err)
				continue
			}
			put(line)
		}
	}
	send := func() {
		if !failed && w.Flush() != nil {
			failed = true
		}
		if failed {
			p.kill() // the child stopped reading: end the run
		}
	}
	for {
		select {
		case <-ready:
			ready, notify = nil, p.q.Ready()
			flushQueue()
			send()
		case line := <-p.out:
			flushQueue()
			put(line)
			send()
		case <-notify:
			flushQueue()
			send()
		case <-p.closing:
			flushQueue()
			send()
			return
		case <-p.done:
			return
		}
	}
}

// readStderr logs each line of the child's stderr (at info, up to 64 KiB
// each) and keeps the last one for causes.
func (p *proc) readStderr(stderr *os.File, done chan<- struct{}) {
	defer close(done)
	defer stderr.Close()
	r := bufio.NewReaderSize(stderr, 4<<10)
	for {
		line, tooLong, err := readLine(r, 64<<10)
		if err != nil {
			return
		}
		text := strings.TrimRight(string(line), "\r")
		if tooLong {
			text = "(a line over 64 KiB)"
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		p.log.Info("plugin stderr", "line", text)
		p.mu.Lock()
		p.tail = text
		p.mu.Unlock()
	}
}

// stop ends the run (plugin-protocol.md §3): the writer flushes the queue
// and closes stdin; SIGTERM follows after stopGrace, SIGKILL after another.
// It returns when the run is over or ctx ends.
func (p *proc) stop(ctx context.Context) {
	p.closeOnce.Do(func() { close(p.closing) })
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t := time.NewTimer(stopGrace)
		select {
		case <-p.done:
			t.Stop()
			return
		case <-ctx.Done():
			t.Stop()
			p.signal(syscall.SIGKILL)
			return
		case <-t.C:
		}
		p.signal(sig)
	}
	select {
	case <-p.done:
	case <-ctx.Done():
	}
}

// kill ends the run at once.
func (p *proc) kill() { p.signal(syscall.SIGKILL) }

// signal sends sig to the child's process group (it was started as a
// group leader), so the programs it started go too.
func (p *proc) signal(sig syscall.Signal) {
	select {
	case <-p.waited:
		return
	default:
	}
	_ = syscall.Kill(-p.pid, sig)
}
