package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/tools"
)

// stdioLines drives one stdio session line by line.
type stdioLines struct {
	in  *io.PipeWriter
	out *bufio.Reader
}

func openStdio(t *testing.T, srv *Server, direct bool) (*stdioLines, *StdioTransport) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr, ss, err := srv.connectStdio(inR, outW, 0, direct)
	require.NoError(t, err)
	assert.Equal(t, direct, tr.direct != nil)
	t.Cleanup(func() { _ = ss.Close(); _ = inW.Close(); _ = outR.Close() })
	s := &stdioLines{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	s.roundTrip(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s, tr
}

// taken returns how many calls tr served directly.
func taken(tr *StdioTransport) int64 {
	if tr.direct == nil {
		return 0
	}
	return tr.direct.taken.Load()
}

func (s *stdioLines) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(s.in, line+"\n")
	require.NoError(t, err)
}

// roundTrip sends one request and returns the next line read.
func (s *stdioLines) roundTrip(t *testing.T, line string) string {
	t.Helper()
	s.send(t, line)
	return s.next(t)
}

// next returns the next line read, within 10 s.
func (s *stdioLines) next(t *testing.T) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		l, _ := s.out.ReadString('\n')
		got <- l
	}()
	select {
	case l := <-got:
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no line within 10 s")
		return ""
	}
}

// A direct call answers byte for byte what the SDK answers: for successes
// and failures of every tool of the default deployment, coded errors with
// their _meta, edits with their diffs, text with HTML characters, U+2028,
// invalid UTF-8 shown as U+FFFD and controls, and requests the direct path
// leaves to the SDK (an unknown tool, extra params, a per-request protocol
// field).
func TestDirectCallsAnswerAsTheSDK(t *testing.T) {
	script := []string{
		`{"name":"read","arguments":{"file_path":"a.txt"}}`,
		`{"name":"read","arguments":{"file_path":"a.txt","offset":99}}`,
		`{"name":"read","arguments":{"file_path":"missing.txt"}}`,
		`{"name":"read","arguments":{"file_path":3}}`,
		`{"name":"read"}`,
		`{"name":"list","arguments":{"path":"."}}`,
		`{"name":"edit","arguments":{"file_path":"b.txt","old_string":"two","new_string":"TWO"}}`,
		`{"name":"read","arguments":{"file_path":"b.txt"}}`,
		`{"name":"edit","arguments":{"file_path":"b.txt","old_string":"two","new_string":"TWO"}}`,
		`{"name":"edit","arguments":{"file_path":"b.txt","old_string":"TWO","new_string":"two"}}`,
		`{"name":"write","arguments":{"file_path":"c.txt","content":"new <file>\n"}}`,
		`{"name":"glob","arguments":{"pattern":"*.txt"}}`,
		`{"name":"grep","arguments":{"pattern":"o"}}`,
		`{"name":"grep","arguments":{"pattern":"("}}`,
		`{"name":"nope","arguments":{}}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"extra":1}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":{"progressToken":7}}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
		// A trial's finds: a _meta that is no object (invalid params on
		// the SDK path), a protocol field spelled with escapes.
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":5}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":[]}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":"io"}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":{"io.modelcontextprotocol\u002fprotocolVersion":"2026-07-28"}}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":null}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":{"progressToken":"io.modelcontextprotocol/x"}}`,
	}
	run := func(direct bool) ([]string, int64) {
		st := stacktest.New(t, stacktest.Options{})
		for name, text := range map[string]string{
			"a.txt": "<tag> & \"quote\" \\ back\u2028sep\u2029\ttab\x01ctl é 日本 \u00ff end\n",
			"b.txt": "one\ntwo\nthree\n",
		} {
			require.NoError(t, os.WriteFile(filepath.Join(st.W, name), []byte(text), 0o644))
		}
		srv, err := New(st.Host.Root(), st.Registry, Options{Name: "test", Version: "1", Cwd: func() string { return st.W }})
		require.NoError(t, err)
		s, tr := openStdio(t, srv, direct)
		var answers []string
		for i, params := range script {
			id := json.Number(strconv.Itoa(i+1) + strings.Repeat("0", i%15)) // distinct ids up to 17 digits, the same in both runs
			answers = append(answers, strings.ReplaceAll(s.roundTrip(t, `{"jsonrpc":"2.0","id":`+string(id)+`,"method":"tools/call","params":`+params+`}`), st.W, "W"))
		}
		return answers, taken(tr)
	}
	sdk, _ := run(false)
	direct, n := run(true)
	assert.Equal(t, int64(len(script)-7), n, "all but the unknown tool, the extra param, the protocol fields and the bad _meta went direct")
	require.Len(t, direct, len(sdk))
	for i := range sdk {
		assert.Equal(t, sdk[i], direct[i], "answer to %s", script[i])
	}
	assert.Contains(t, direct[0], `\u003ctag\u003e \u0026 \"quote\" \\ back\u2028sep\u2029\ttab\u0001ctl é 日本 ÿ end`)
	assert.Contains(t, direct[9], `"diffs"`)
}

// The direct path takes plain calls only; the SDK keeps the rest.
func TestPlainCallParams(t *testing.T) {
	for params, want := range map[string]bool{
		`{"name":"read","arguments":{"file_path":"a"}}`: true,
		`{"name":"read"}`: true,
		`{"name":"read","_meta":{"progressToken":1}}`:                           true,
		`{"name":"read","_meta":{"io.modelcontextprotocol/protocolVersion":1}}`: false,
		`{"name":"read","inputResponses":{}}`:                                   false,
		`{"name":"read","_meta":{"io.modelcontextprotocol\u002fclientInfo":1}}`: false,
		`{"name":"read","_meta":7}`:                                             false,
		`{"name":"read","_meta":null}`:                                          true,
		`{"name":"read","requestState":"x"}`:                                    false,
		`{"name":3}`:                                                            false,
		`{"NAME":"read"}`:                                                       false,
		`{"name":"read","Arguments":{}}`:                                        false,
		`{"arguments":{}}`:                                                      false,
		`[]`:                                                                    false,
		`null`:                                                                  false,
	} {
		_, _, ok := plainCallParams(json.RawMessage(params))
		assert.Equal(t, want, ok, params)
	}
}

// registerWait registers the tool "wait", which signals started and
// runs until its context ends.
func registerWait(t *testing.T, st *stacktest.Stack) (started chan struct{}) {
	t.Helper()
	started = make(chan struct{}, 4)
	_, err := st.Registry.Register(st.Host.Root(), tools.Tool{Name: "wait", Parameters: json.RawMessage(`{"type":"object"}`),
		Execute: func(ctx context.Context, _ tools.Args, _ *tools.Exec) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		},
		Render: func(_ tools.Args, v any) []tools.Block { return []tools.Block{tools.TextBlock(v.(string))} },
	})
	require.NoError(t, err)
	return started
}

// A cancelled call and a timed-out one answer alike on both paths: the
// client's notifications/cancelled reaches a direct call's context.
func TestDirectCallsCancelAsTheSDK(t *testing.T) {
	run := func(direct bool) (cancelled, timedOut string) {
		st := stacktest.New(t, stacktest.Options{})
		started := registerWait(t, st)
		srv, err := New(st.Host.Root(), st.Registry, Options{Name: "test", Version: "1", Cwd: func() string { return st.W }, CallTimeout: 300 * time.Millisecond})
		require.NoError(t, err)
		s, tr := openStdio(t, srv, direct)
		s.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
		<-started
		cancelled = s.roundTrip(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}`)
		timedOut = s.roundTrip(t, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
		assert.Equal(t, map[bool]int64{false: 0, true: 2}[direct], taken(tr))
		if direct {
			// Each wait ran on the reader and outlived inlineGrace: the
			// reading was handed over, or the cancellation was never read.
			assert.Equal(t, int64(2), tr.direct.inline.handovers.Load())
		}
		return cancelled, timedOut
	}
	sdkCancelled, sdkTimedOut := run(false)
	cancelled, timedOut := run(true)
	assert.Equal(t, sdkCancelled, cancelled)
	assert.Equal(t, sdkTimedOut, timedOut)
	assert.Contains(t, cancelled, `"id":5`)
	assert.Contains(t, cancelled, `"isError":true`)
	assert.Contains(t, timedOut, `timed out after 300 ms`)
}

// Many direct calls in flight at once are each answered once, with their
// own result, by a bounded set of workers.
func TestDirectCallsInFlightAreEachAnsweredOnce(t *testing.T) {
	st := stacktest.New(t, stacktest.Options{})
	for i := range 20 {
		require.NoError(t, os.WriteFile(filepath.Join(st.W, "f"+strconv.Itoa(i)), []byte("content "+strconv.Itoa(i)+"\n"), 0o644))
	}
	srv, err := New(st.Host.Root(), st.Registry, Options{Name: "test", Version: "1", Cwd: func() string { return st.W }})
	require.NoError(t, err)
	s, tr := openStdio(t, srv, true)
	const calls = 200
	go func() {
		for i := range calls {
			s.send(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":{"name":"read","arguments":{"file_path":"f`+strconv.Itoa(i%20)+`"}}}`)
		}
	}()
	seen := map[int]bool{}
	for range calls {
		line, err := s.out.ReadString('\n')
		require.NoError(t, err)
		var m struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		assert.False(t, seen[m.ID], "id %d answered twice", m.ID)
		seen[m.ID] = true
		require.Len(t, m.Result.Content, 1, line)
		assert.Contains(t, m.Result.Content[0].Text, "1: content "+strconv.Itoa((m.ID-1)%20)+"\n")
	}
	assert.Len(t, seen, calls)
	assert.Equal(t, int64(calls), taken(tr))
	assert.LessOrEqual(t, tr.direct.idle.Load(), int32(maxIdleWorkers))
}

// A request whose id is that of a call still in flight is dropped without
// an answer on both paths (the SDK's jsonrpc2: "request ID already in
// use"), whichever path serves the call in flight: a trial found the
// direct path answering such a request, and a plain call reusing the id of
// a call the SDK serves.
func TestDirectCallsDropDuplicateIDsAsTheSDK(t *testing.T) {
	run := func(direct bool) []string {
		st := stacktest.New(t, stacktest.Options{})
		require.NoError(t, os.WriteFile(filepath.Join(st.W, "a.txt"), []byte("a\n"), 0o644))
		started := registerWait(t, st)
		srv, err := New(st.Host.Root(), st.Registry, Options{Name: "test", Version: "1", Cwd: func() string { return st.W }})
		require.NoError(t, err)
		s, _ := openStdio(t, srv, direct)
		var lines []string
		for _, first := range []string{
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"wait","arguments":{}}}`,       // direct
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"wait","arguments":{},"x":1}}`, // the SDK's
		} {
			s.send(t, first)
			<-started
			s.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read","arguments":{"file_path":"a.txt"}}}`)
			s.send(t, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
			s.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
			// Everything answered before the ping that follows.
			// Every line up to the wait's aborted answer, then a ping's:
			// nothing else was answered.
			for line := ""; !strings.Contains(line, `"isError":true`); {
				line = s.next(t)
				lines = append(lines, line)
			}
			lines = append(lines, s.roundTrip(t, `{"jsonrpc":"2.0","id":9,"method":"ping"}`))
		}
		return lines
	}
	sdk := run(false)
	assert.Equal(t, sdk, run(true))
	assert.Len(t, sdk, 4, "each wait's aborted answer, then the ping: %q", sdk)
}

// A client that stops reading for longer than the call timeout still gets
// every call's own result on both paths: an answer blocked on the output
// holds no call slot (a trial saw a direct call's blocked write keep its
// slot, and the calls queued behind it answer "tool call timed out").
func TestDirectCallsBlockedOutputHoldsNoSlot(t *testing.T) {
	run := func(direct bool) []string {
		st := stacktest.New(t, stacktest.Options{})
		require.NoError(t, os.WriteFile(filepath.Join(st.W, "a.txt"), []byte("a\n"), 0o644))
		srv, err := New(st.Host.Root(), st.Registry, Options{Name: "test", Version: "1", Cwd: func() string { return st.W },
			MaxInFlight: 1, CallTimeout: 300 * time.Millisecond})
		require.NoError(t, err)
		s, _ := openStdio(t, srv, direct)
		for i := range 3 {
			s.send(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":{"name":"read","arguments":{"file_path":"a.txt"}}}`)
		}
		time.Sleep(time.Second) // the client reads nothing meanwhile
		var answers []string
		for range 3 {
			answers = append(answers, strings.ReplaceAll(s.next(t), st.W, "W"))
		}
		slices.Sort(answers)
		return answers
	}
	sdk := run(false)
	assert.Equal(t, sdk, run(true))
	for _, a := range sdk {
		assert.Contains(t, a, "1: a", "each call's own result")
	}
}
