package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"

	"github.com/dsh-go/dsh/plugins/tools"
)

// scriptCall is one entry of a run script.
type scriptCall struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// scriptLine is one line of run's output.
type scriptLine struct {
	I       int    `json:"i"`
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
	Code    string `json:"code,omitempty"`
}

// runScript runs `dshhost run SCRIPT|-`: every call of the script in one
// conversation, printing one JSON line per call, `{"i":N,"isError":bool,
// "text":"...","code":"FS_..."}` with i the 0-based call index and code only
// on errors that carry one. Exit 0 when every call produced a result, 2 when
// the script or the config is unusable.
func runScript(ctx context.Context, env Env, c *common, rest []string) int {
	if len(rest) != 1 {
		fmt.Fprintf(env.Stderr, "usage: %s run [flags] SCRIPT|-\n", program)
		return 2
	}
	calls, err := readScript(env, rest[0])
	if err != nil {
		fmt.Fprintln(env.Stderr, program+" run:", err)
		return 2
	}
	rt, code := start(ctx, env, c, slog.LevelWarn)
	if rt == nil {
		return code
	}
	defer rt.close()
	conv := rt.conversation("run")
	out := bufio.NewWriter(env.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for i, sc := range calls {
		res := rt.reg.Execute(ctx, sc.Tool, sc.Args, &tools.Exec{Conv: conv})
		// Each result is written as its call ends, so a reader sees the
		// calls that ran even when the process is killed.
		err := enc.Encode(scriptLine{I: i, IsError: res.IsError, Text: res.Text(), Code: res.Code()})
		if err == nil {
			err = out.Flush()
		}
		if err != nil {
			fmt.Fprintln(env.Stderr, program+" run:", err)
			return 2
		}
	}
	return 0
}

// maxScript is the largest script run reads, in bytes (64 MiB): a script
// is a list of tool calls, and reading `/dev/zero` must not grow without
// bound.
const maxScript = 64 << 20

// readScript reads a JSON array of calls, or JSON lines of calls (one per
// line, blank lines skipped), from a file or stdin ("-"), of at most
// maxScript bytes. Calls are counted from 0, as run's output counts them;
// lines from 1. A call object has exactly the keys "tool" and "args"; any
// other key is an error that names it and the key meant.
func readScript(env Env, name string) ([]scriptCall, error) {
	r := env.Stdin
	if name != "-" {
		if !filepath.IsAbs(name) && env.Dir != "" {
			name = filepath.Join(env.Dir, name)
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxScript+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxScript {
		return nil, fmt.Errorf("script is larger than %d MiB", maxScript>>20)
	}
	trimmed := bytes.TrimSpace(data)
	var calls []scriptCall
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, fmt.Errorf("script: %w", err)
		}
		for i, raw := range raws {
			sc, err := decodeCall(raw)
			if err != nil {
				return nil, fmt.Errorf("script call %d: %w", i, err)
			}
			calls = append(calls, sc)
		}
	} else {
		for n, text := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(text)) == 0 {
				continue
			}
			sc, err := decodeCall(text)
			if err != nil {
				return nil, fmt.Errorf("script line %d (call %d): %w", n+1, len(calls), err)
			}
			calls = append(calls, sc)
		}
	}
	if len(calls) == 0 {
		return nil, errors.New("script has no calls")
	}
	return calls, nil
}

// misspelledKeys maps keys a script author may write to the key meant.
var misspelledKeys = map[string]string{
	"arguments": "args", "argument": "args", "arg": "args", "params": "args", "parameters": "args", "input": "args",
	"name": "tool", "tool_name": "tool", "toolName": "tool", "function": "tool",
}

// decodeCall decodes one call object strictly: "tool" (a non-empty string)
// and "args" are its only keys.
func decodeCall(raw []byte) (scriptCall, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return scriptCall{}, err
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "tool" || k == "args" {
			continue
		}
		if meant, ok := misspelledKeys[k]; ok {
			return scriptCall{}, fmt.Errorf("unknown key %q: did you mean %q? (a call is {\"tool\":NAME,\"args\":{...}})", k, meant)
		}
		return scriptCall{}, fmt.Errorf("unknown key %q (a call is {\"tool\":NAME,\"args\":{...}})", k)
	}
	var sc scriptCall
	if err := json.Unmarshal(raw, &sc); err != nil {
		return scriptCall{}, err
	}
	if sc.Tool == "" {
		return scriptCall{}, errors.New(`missing "tool"`)
	}
	return sc, nil
}
