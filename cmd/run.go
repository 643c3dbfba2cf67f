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
// session, printing one JSON line per call, `{"i":N,"isError":bool,
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
	session := rt.session()
	out := bufio.NewWriter(env.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for i, sc := range calls {
		res := rt.reg.Execute(ctx, sc.Tool, sc.Args, &tools.Exec{Session: session})
		if err := enc.Encode(scriptLine{I: i, IsError: res.IsError, Text: res.Text(), Code: res.Code()}); err != nil {
			fmt.Fprintln(env.Stderr, program+" run:", err)
			return 2
		}
	}
	return 0
}

// readScript reads a JSON array of calls, or JSON lines of calls (one per
// line, blank lines skipped), from a file or stdin ("-"). Calls are counted
// from 0, as run's output counts them; lines from 1.
func readScript(env Env, name string) ([]scriptCall, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(env.Stdin)
	} else {
		if !filepath.IsAbs(name) && env.Dir != "" {
			name = filepath.Join(env.Dir, name)
		}
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(data)
	var calls []scriptCall
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &calls); err != nil {
			return nil, fmt.Errorf("script: %w", err)
		}
		for i, sc := range calls {
			if sc.Tool == "" {
				return nil, fmt.Errorf("script call %d: missing \"tool\"", i)
			}
		}
	} else {
		for n, text := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(text)) == 0 {
				continue
			}
			var sc scriptCall
			if err := json.Unmarshal(text, &sc); err != nil {
				return nil, fmt.Errorf("script line %d (call %d): %w", n+1, len(calls), err)
			}
			if sc.Tool == "" {
				return nil, fmt.Errorf("script line %d (call %d): missing \"tool\"", n+1, len(calls))
			}
			calls = append(calls, sc)
		}
	}
	if len(calls) == 0 {
		return nil, errors.New("script has no calls")
	}
	return calls, nil
}
