package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/tools"
)

// stdioLines drives one stdio connection line by line.
type stdioLines struct {
	in  *io.PipeWriter
	out *bufio.Reader
}

// openStdio connects a stdio transport to srv, with the fast path when
// fast is set; a legacy client first initializes.
func openStdio(t *testing.T, srv *Server, fast, legacy bool) (*stdioLines, *StdioTransport) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr, ss, err := srv.connectStdio(inR, outW, 0, fast)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close(); _ = inW.Close(); _ = outR.Close() })
	s := &stdioLines{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	if legacy {
		s.roundTrip(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	return s, tr
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

// modernMeta is the _meta of a 2026-07-28 request in conversation h, its
// client declaring form elicitation.
func modernMeta(h string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.github.dsh-go/conversation":"` + h + `"},`
}

// TestFastCallsAnswerAsTheSDK: the fast path answers byte for byte what the
// SDK answers, in both eras: successes and failures of every tool of the
// default deployment (and sandbox_mode), coded errors with their _meta,
// edits with their diffs, text with HTML characters, U+2028, invalid UTF-8
// shown as U+FFFD and controls; and the requests it leaves to the SDK (an
// unknown tool, extra params, a progress token, protocol fields it does not
// take, an invalid conversation handle, an approval question that is an
// input-required result) are answered by the SDK alike.
func TestFastCallsAnswerAsTheSDK(t *testing.T) {
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
		`{"name":"sandbox_mode","arguments":{}}`,
		`{"name":"sandbox_mode","arguments":{"mode":"read-only"}}`,
		`{"name":"sandbox_mode","arguments":{"mode":"workspace-write","justification":"Fix it."}}`,
		`{"name":"mixed","arguments":{}}`,
		`{"name":"refuse","arguments":{}}`,
		`{"name":"nope","arguments":{}}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"extra":1}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":{"progressToken":7}}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":5}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":null}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":{"io.github.dsh-go/conversation":"bad handle"}}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":{"io.github.dsh-go/conversation":"other"}}`,
		`{"name":"read","arguments":{"file_path":"a.txt"},"_meta":{"io.modelcontextprotocol/logLevel":"debug"}}`,
	}
	state := regexp.MustCompile(`"requestState":"[^"]*"`)
	run := func(fast, legacy bool) []string {
		st := stacktest.New(t, stacktest.Options{FSSandbox: map[string]any{"sessionSwitch": true}})
		for i, f := range []struct{ name, text string }{
			{"a.txt", "<tag> & \"quote\" \\ back\u2028sep\u2029\ttab\x01ctl é 日本 \u00ff end\n"},
			{"b.txt", "one\ntwo\nthree\n"},
			{"d.txt", "bad \xff\xfe utf8 and \x7f del\n"},
		} {
			path := filepath.Join(st.W, f.name)
			require.NoError(t, os.WriteFile(path, []byte(f.text), 0o644))
			at := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC) // glob lists newest first: one order in both runs
			require.NoError(t, os.Chtimes(path, at, at))
		}
		_, err := st.Registry.Register(st.Host.Root(), tools.Tool{Name: "mixed", Parameters: []byte(`{"type":"object","properties":{}}`),
			Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) { return nil, nil },
			Render: func(tools.Args, any) []tools.Block {
				return []tools.Block{tools.TextBlock("a <b>"), tools.ImageBlock("image/png", []byte{0x89, 'P', 'N', 'G'}),
					tools.AudioBlock("audio/wav", []byte("RIFF")), tools.ResourceBlock("file:///w/a.txt", "text/plain", "text <x>", nil),
					tools.ResourceBlock("file:///w/b.bin", "application/octet-stream", "", []byte{0, 1, 2})}
			}})
		require.NoError(t, err)
		_, err = st.Registry.Register(st.Host.Root(), tools.Tool{Name: "refuse", Parameters: []byte(`{"type":"object","properties":{}}`),
			Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) {
				return nil, &tools.ProtocolError{Code: -32021, Message: "missing capability", Data: map[string]any{"required": []string{"sampling"}}}
			}})
		require.NoError(t, err)
		srv, err := New(st.Host.Root(), st.Registry, Options{Name: "test", Version: "1", Cwd: func() string { return st.W }})
		require.NoError(t, err)
		s, _ := openStdio(t, srv, fast, legacy)
		var out []string
		for i, params := range append(script, `{"name":"read","arguments":{"file_path":"d.txt"}}`) {
			if !legacy {
				params = addMeta(params, modernMeta("parity"))
			}
			line := s.roundTrip(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":`+params+`}`)
			line = strings.ReplaceAll(line, st.W, "{{W}}")
			out = append(out, state.ReplaceAllString(line, `"requestState":"…"`))
		}
		return out
	}
	for _, era := range []struct {
		name   string
		legacy bool
	}{{"legacy session", true}, {"2026-07-28", false}} {
		t.Run(era.name, func(t *testing.T) {
			sdk, fast := run(false, era.legacy), run(true, era.legacy)
			require.Len(t, fast, len(sdk))
			for i := range sdk {
				assert.Equal(t, sdk[i], fast[i], "call %d: %s", i+1, script[min(i, len(script)-1)])
			}
			if !era.legacy {
				assert.Contains(t, sdk[16], `"resultType":"input_required"`, "the widening asks through a multi round-trip result")
			}
			assert.Contains(t, sdk[17], `{"type":"image","mimeType":"image/png","data":"iVBORw=="}`)
			assert.Contains(t, sdk[18], `"error":{"code":-32021,"message":"missing capability","data":{"required":["sampling"]}}`)
		})
	}
}

// addMeta puts meta (`"_meta":{...},`) first in params, unless params
// carries a _meta of its own, whose keys then come after meta's.
func addMeta(params, meta string) string {
	if i := strings.Index(params, `"_meta":{`); i >= 0 {
		inner := strings.TrimSuffix(strings.TrimPrefix(meta, `"_meta":{`), "},")
		return params[:i] + `"_meta":{` + inner + "," + params[i+len(`"_meta":{`):]
	}
	if strings.Contains(params, `"_meta":`) {
		return params
	}
	return "{" + meta + params[1:]
}

// TestTheFastPathTakesPlainCalls: the parity test above would pass with a
// fast path that takes nothing; this one counts what it takes.
func TestTheFastPathTakesPlainCalls(t *testing.T) {
	st := stacktest.New(t, stacktest.Options{})
	require.NoError(t, os.WriteFile(filepath.Join(st.W, "a.txt"), []byte("a\n"), 0o644))
	srv, err := New(st.Host.Root(), st.Registry, Options{Name: "test", Version: "1", Cwd: func() string { return st.W }})
	require.NoError(t, err)
	for _, legacy := range []bool{true, false} {
		s, tr := openStdio(t, srv, true, legacy)
		meta := ""
		if !legacy {
			meta = modernMeta("count")
		}
		for i := range 3 {
			s.roundTrip(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":{`+meta+`"name":"read","arguments":{"file_path":"a.txt"}}}`)
		}
		s.roundTrip(t, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{`+meta+`"name":"read","arguments":{"file_path":"a.txt"},"extra":1}}`)
		assert.Equal(t, int64(3), tr.fast.taken.Load(), "legacy %v", legacy)
	}
}

// TestAHandedBackCallIsAnsweredAtTheEndOfInput: a call the fast path hands
// to the SDK (an approval question to a 2026-07-28 client) is answered
// although the input ended right after it (`printf ... | dshhost serve`).
func TestAHandedBackCallIsAnsweredAtTheEndOfInput(t *testing.T) {
	st := stacktest.New(t, stacktest.Options{FSSandbox: map[string]any{"mode": "read-only", "sessionSwitch": true}})
	srv, err := New(st.Host.Root(), st.Registry, Options{Name: "test", Version: "1", Cwd: func() string { return st.W }})
	require.NoError(t, err)
	s, _ := openStdio(t, srv, true, false)
	for i := range 20 {
		s.send(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":{`+modernMeta("c"+strconv.Itoa(i))+`"name":"sandbox_mode","arguments":{"mode":"workspace-write","justification":"x"}}}`)
	}
	require.NoError(t, s.in.Close())
	for range 20 {
		assert.Contains(t, s.next(t), `"resultType":"input_required"`)
	}
}

// TestTheClientsAnswersPassWaitingRequests: with the only call slot held
// by an approval question and 300 requests waiting behind it, the client's
// answer to the question is still read: the waiting requests park, they do
// not stop the reading (a legacy session asked through elicitation/create).
func TestTheClientsAnswersPassWaitingRequests(t *testing.T) {
	st := stacktest.New(t, stacktest.Options{FSSandbox: map[string]any{"mode": "read-only", "sessionSwitch": true}})
	require.NoError(t, os.WriteFile(filepath.Join(st.W, "a.txt"), []byte("a\n"), 0o644))
	srv, err := New(st.Host.Root(), st.Registry, Options{Name: "test", Version: "1", Cwd: func() string { return st.W }, MaxInFlight: 1})
	require.NoError(t, err)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	_, ss, err := srv.connectStdio(inR, outW, 0, true)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close(); _ = inW.Close(); _ = outR.Close() })
	s := &stdioLines{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	s.roundTrip(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sandbox_mode","arguments":{"mode":"workspace-write","justification":"x"}}}`)
	question := s.next(t)
	require.Contains(t, question, `"method":"elicitation/create"`)
	var q struct {
		ID json.RawMessage `json:"id"`
	}
	require.NoError(t, json.Unmarshal([]byte(question), &q))
	go func() { // the client's writes run ahead of its reads
		for i := range 300 {
			s.send(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(100+i)+`,"method":"tools/call","params":{"name":"read","arguments":{"file_path":"a.txt"}}}`)
		}
		s.send(t, `{"jsonrpc":"2.0","id":`+string(q.ID)+`,"result":{"action":"accept"}}`)
	}()
	approved := false
	for range 301 {
		if strings.Contains(s.next(t), "approved by the user") {
			approved = true
		}
	}
	assert.True(t, approved, "the approval was answered, not timed out")
}

// TestARequestReadDuringTheDrainIsRefused: once the server drains, a new
// stdio request is answered -32000 and not run; the call in flight ends
// normally.
func TestARequestReadDuringTheDrainIsRefused(t *testing.T) {
	st := stacktest.New(t, stacktest.Options{})
	release := make(chan struct{})
	srv, err := New(st.Host.Root(), st.Registry, Options{Name: "test", Version: "1", Cwd: func() string { return st.W }})
	require.NoError(t, err)
	ran := make(chan struct{}, 2)
	_, err = st.Registry.Register(st.Host.Root(), tools.Tool{Name: "block", Parameters: []byte(`{"type":"object","properties":{}}`),
		Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) {
			ran <- struct{}{}
			<-release
			return "done", nil
		}})
	require.NoError(t, err)
	s, _ := openStdio(t, srv, true, true)
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	<-ran
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	require.Eventually(t, srv.limits.requests.isDraining, 5*time.Second, time.Millisecond)
	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"the server is shutting down"}}`, s.next(t))
	close(release)
	assert.Contains(t, s.next(t), `"id":1,"result"`)
	require.NoError(t, <-shut)
	assert.Len(t, ran, 0, "the refused request never ran")
}
