package exec_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/tools"
)

// docPath is the protocol for plugin authors.
const docPath = "../../docs/plugin-protocol.md"

// The session of the doc is the fenced block after this marker: lines
// `→ <json>` (host to plugin) and `← <json>` (plugin to host).
const sessionMarker = "<!-- replayed by plugins/exec/protocol_doc_test.go -->"

// docWorkspace is the workspace the doc's session shows; the test's
// stands in for it.
const docWorkspace = "/home/you/project"

// versionField matches a version in a host line; versions are the
// provider's and differ between runs, so both sides compare as "V".
var versionField = regexp.MustCompile(`"version":"[^"]*"`)

// session returns the doc's exchange.
func session(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(doc), sessionMarker)
	require.True(t, ok, "docs/plugin-protocol.md has the session marker")
	_, block, ok := strings.Cut(after, "```\n")
	require.True(t, ok)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)
	var lines []string
	for l := range strings.SplitSeq(strings.TrimSpace(block), "\n") {
		require.True(t, strings.HasPrefix(l, "→ ") || strings.HasPrefix(l, "← "), "a session line starts with an arrow: %q", l)
		require.True(t, json.Valid([]byte(l[len("→ "):])), "a session line is one JSON message: %q", l)
		lines = append(lines, l)
	}
	return lines
}

// TestTheDocsSessionIsWhatTheHostSends replays the session of
// docs/plugin-protocol.md verbatim against a scripted child: every line
// the host sends must be the doc's next `→` line, byte for byte (the
// workspace and the versions aside), and the child answers with the doc's
// `←` lines. The calls are the ones the doc describes, and their results
// are what it says the model sees.
func TestTheDocsSessionIsWhatTheHostSends(t *testing.T) {
	lines := session(t)
	s := stacktest.New(t, stacktest.Options{})
	dir := t.TempDir()
	scriptFile, verdict := filepath.Join(dir, "script"), filepath.Join(dir, "verdict")
	text := strings.ReplaceAll(strings.Join(lines, "\n"), docWorkspace, s.W)
	require.NoError(t, os.WriteFile(scriptFile, []byte(text+"\n"), 0o644))
	cfg := config(t, s, "script", "DSH_EXEC_SCRIPT", scriptFile, "DSH_EXEC_VERDICT", verdict)
	cfg.Settings = map[string]any{"greeting": "hello"}
	inst := mount(t, s, "example", cfg)
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())

	conv := &tools.Conversation{ID: "stdio/c/demo", Principal: "stdio", Cwd: s.W}
	call := func(id, tool, args string) tools.Result {
		return s.Registry.Execute(context.Background(), tool, json.RawMessage(args), &tools.Exec{CallID: id, Conv: conv})
	}
	res := call("call-1", "write", `{"file_path":"notes.txt","content":"hello world\n"}`)
	assert.Equal(t, "", res.Code(), res.Text())
	res = call("call-2", "write", `{"file_path":".env","content":"TOKEN=x\n"}`)
	assert.Equal(t, `Error: cannot write ".env": env files are off limits`, res.Text())
	assert.Equal(t, "ENV_FILE", res.Code())
	res = call("call-3", "word_count", `{"text":"hello brave new world"}`)
	assert.Equal(t, "4 words", res.Text())
	require.NoError(t, events.ConversationClosed.Emit(context.Background(), s.Host.Root(), conv.ID))
	require.NoError(t, inst.Dispose(context.Background())) // the child reads to the end of its stdin

	got, err := os.ReadFile(verdict)
	require.NoError(t, err, "the scripted child wrote its verdict")
	assert.Equal(t, "ok\n", string(got))
}

// script is the scripted child: it replays file, a session of `→` and `←`
// lines, and writes "ok" to verdict when its stdin ends; at the first
// difference it writes the difference and exits, so that no call waits for
// it. A verdict already written is kept (a restarted child replays again).
func script(file, verdict string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		return 2
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	result := "ok"
	i := 0
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			break
		}
		line = strings.TrimSuffix(line, "\n")
		if i >= len(lines) || !strings.HasPrefix(lines[i], "→ ") {
			result = fmt.Sprintf("the host sent a line the session does not have:\n%s", line)
			break
		}
		want := lines[i][len("→ "):]
		if versionField.ReplaceAllString(line, `"version":"V"`) != versionField.ReplaceAllString(want, `"version":"V"`) {
			result = fmt.Sprintf("line %d differs:\nwant %s\ngot  %s", i+1, want, line)
			break
		}
		for i++; i < len(lines) && strings.HasPrefix(lines[i], "← "); i++ {
			out.WriteString(lines[i][len("← "):] + "\n")
		}
		out.Flush()
	}
	if result == "ok" && i < len(lines) {
		result = fmt.Sprintf("the host stopped at line %d of %d: %s", i+1, len(lines), lines[i])
	}
	if f, err := os.OpenFile(verdict, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
		f.WriteString(result + "\n")
		f.Close()
	}
	if result != "ok" {
		return 1
	}
	return 0
}
