package exec_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"
)

// The test binary is also the child: with DSH_EXEC_CHILD set, TestMain
// runs child(mode) instead of the tests. The modes:
//
//	guard       declares DSH_EXEC_EVENTS (comma-separated; default both
//	            intents and fs/observed) and the tool "shout"; denies an
//	            intent whose rel's base starts with "secret" (code
//	            SECRET_PATH); appends every message it gets to
//	            DSH_EXEC_RECORD (a JSONL file) when set
//	hang        answers initialize, never an intent
//	crash       answers initialize, exits 3 at the first intent, saying why
//	            on stderr
//	garbage     answers every intent with a line that is not JSON
//	wrongshape  answers every intent with {"decision": "maybe"}
//	exit        writes "boom" on stderr and exits 1 before initialize
//	mute        never answers initialize
//	longline    answers every intent with a line over the bound
//	            (with DSH_EXEC_CRASH_ONCE=<file>, a guard exits 3 at its
//	            first intent when the file is absent, creating it)
//	sticky      like guard, but ignores the end of stdin: SIGTERM ends it
//	stubborn    like sticky, and ignores SIGTERM: only SIGKILL ends it
//	deaf        answers initialize, then never reads stdin again
//	closer      answers initialize, then closes its stdout and sleeps
//	script      replays DSH_EXEC_SCRIPT (protocol_doc_test.go)
//
// With DSH_EXEC_PIDFILE set, the child writes its pid there first.
func TestMain(m *testing.M) {
	if mode := os.Getenv("DSH_EXEC_CHILD"); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

type childMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func child(mode string) int {
	if mode == "script" {
		return script(os.Getenv("DSH_EXEC_SCRIPT"), os.Getenv("DSH_EXEC_VERDICT"))
	}
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, "boom")
		return 1
	}
	if mode == "stubborn" {
		ignoreTerm()
	}
	if p := os.Getenv("DSH_EXEC_PIDFILE"); p != "" {
		os.WriteFile(p, []byte(fmt.Sprint(os.Getpid())), 0o644)
	}
	var record *os.File
	if p := os.Getenv("DSH_EXEC_RECORD"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		record = f
	}
	out := bufio.NewWriter(os.Stdout)
	answer := func(id json.RawMessage, result any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
		out.Write(append(b, '\n'))
		out.Flush()
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			if mode == "stubborn" || mode == "sticky" {
				select {} // wait for a signal
			}
			return 0
		}
		var m childMsg
		if err := json.Unmarshal(line, &m); err != nil {
			fmt.Fprintln(os.Stderr, "bad line:", err)
			continue
		}
		if record != nil {
			record.Write(line)
		}
		switch {
		case m.Method == "initialize":
			if mode == "mute" {
				continue
			}
			evs := []string{"fs/write-intent", "fs/edit-intent", "fs/observed"}
			if e := os.Getenv("DSH_EXEC_EVENTS"); e != "" {
				evs = strings.Split(e, ",")
			}
			answer(m.ID, map[string]any{"name": "child", "version": "1", "events": evs, "tools": []any{
				map[string]any{"name": os.Getenv("DSH_EXEC_TOOL"), "title": "Shout", "description": "Shouts its text back.",
					"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}}},
			}[:toolCount()]})
			if mode == "deaf" {
				select {} // never reads again
			}
			if mode == "closer" {
				os.Stdout.Close()
				select {}
			}
		case strings.HasSuffix(m.Method, "-intent"):
			switch mode {
			case "hang":
				continue
			case "crash":
				fmt.Fprintln(os.Stderr, "crashing on", m.Method)
				return 3
			}
			if marker := os.Getenv("DSH_EXEC_CRASH_ONCE"); marker != "" {
				if _, err := os.Stat(marker); err != nil {
					os.WriteFile(marker, nil, 0o644)
					fmt.Fprintln(os.Stderr, "crashing once")
					return 3
				}
			}
			switch mode {
			case "garbage":
				out.WriteString("this is not JSON\n")
				out.Flush()
				continue
			case "wrongshape":
				answer(m.ID, map[string]any{"decision": "maybe"})
				continue
			case "longline":
				out.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"decision":"next","pad":"` + strings.Repeat("x", 4096) + "\"}}\n")
				out.Flush()
				continue
			}
			var p struct {
				Target struct {
					Rel *string `json:"rel"`
				} `json:"target"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if p.Target.Rel != nil && strings.HasPrefix(path.Base(*p.Target.Rel), "secret") {
				answer(m.ID, map[string]any{"decision": "deny", "message": "no secrets: " + *p.Target.Rel, "code": "SECRET_PATH"})
				continue
			}
			answer(m.ID, map[string]any{"decision": "next"})
		case m.Method == "tools/call":
			var p struct {
				Arguments struct {
					Text string `json:"text"`
				} `json:"arguments"`
			}
			_ = json.Unmarshal(m.Params, &p)
			switch {
			case p.Arguments.Text == "fail":
				answer(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "cannot shout that"}}, "isError": true, "code": "TOO_QUIET"})
			case p.Arguments.Text == "wait": // never answers; the call is cancelled
			default:
				answer(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.ToUpper(p.Arguments.Text) + "!"}}, "isError": false})
			}
		}
	}
}

func toolCount() int {
	if os.Getenv("DSH_EXEC_TOOL") == "" {
		return 0
	}
	return 1
}
