package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewUserMessages: each mistake a new user makes gets an error that says what to do, with exit 2.
func TestNewUserMessages(t *testing.T) {
	w := workspace(t)
	tests := []struct {
		name, stdin string
		env, args   []string
		code        int
		stderr      string
	}{
		{"a bad hardLinks from a flag names the flag and the key path", "", nil,
			[]string{"config", "--set", "fslocal.hardLinks=copy"}, 2,
			`flag --set fslocal.hardLinks=copy: plugins[0].config.hardLinks: fslocal: hardLinks must be "preserve" or "break"`},
		{"a bad hardLinks from the environment names the variable", "", []string{"DSH_FSLOCAL_HARDLINKS=copy"},
			[]string{"config"}, 2,
			`env DSH_FSLOCAL_HARDLINKS: plugins[0].config.hardLinks: fslocal: hardLinks must be "preserve" or "break"`},
		{"config rejects a bad log level as every command does", "", nil,
			[]string{"config", "--log-level", "loud"}, 2,
			`--log-level: unknown log level "loud" (valid: debug, info, warn, error)`},
		{"an unknown log level from the environment lists the valid ones", "", []string{"DSH_LOG_LEVEL=verbose"},
			[]string{"tools"}, 2,
			`DSH_LOG_LEVEL: unknown log level "verbose" (valid: debug, info, warn, error)`},
		{"a script key that is not args names it and the right one", `{"tool":"list","arguments":{}}` + "\n", nil,
			[]string{"run", "-"}, 2,
			`script line 1 (call 0): unknown key "arguments": did you mean "args"?`},
		{"the same in a JSON array", `[{"name":"list"}]`, nil,
			[]string{"run", "-"}, 2,
			`script call 0: unknown key "name": did you mean "tool"?`},
		{"--disable tools says the registry cannot be disabled", "", nil,
			[]string{"tools", "--disable", "tools"}, 2,
			`--disable tools: the tool registry is infrastructure and cannot be disabled`},
		{"flags before the command", "", nil,
			[]string{"--workspace", w, "tools"}, 2,
			`flags go after the command`},
		{"an unknown tool lists the tools on stderr", "", nil,
			[]string{"call", "nosuch", "{}"}, 1,
			`the tools of this deployment are: list, read, write, edit`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := dshhost(t, w, tc.stdin, tc.env, tc.args...)
			assert.Equal(t, tc.code, res.code, "stderr: %s", res.stderr)
			assert.Contains(t, res.stderr, tc.stderr)
		})
	}
	t.Run("the unknown tool's result text stays the contract's", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "call", "nosuch", "{}")
		assert.Equal(t, "Error: unknown tool \"nosuch\"\n", res.stdout)
	})
}

// TestRunRefusesAHugeScript: `dshhost run /dev/zero` used to grow without
// bound; a script over 64 MiB is refused.
func TestRunRefusesAHugeScript(t *testing.T) {
	w := workspace(t)
	res := dshhost(t, w, "", nil, "run", "/dev/zero")
	assert.Equal(t, 2, res.code)
	assert.Contains(t, res.stderr, "script is larger than 64 MiB")
	big := filepath.Join(t.TempDir(), "big.jsonl")
	line := `{"tool":"list","args":{}}` + "\n"
	require.NoError(t, os.WriteFile(big, []byte(strings.Repeat(line, (64<<20)/len(line)+1)), 0o644))
	res = dshhost(t, w, "", nil, "run", big)
	assert.Equal(t, 2, res.code)
	assert.Contains(t, res.stderr, "script is larger than 64 MiB")
}

// TestRelativeRootFollowsTheConfigFile: a relative `root:` in a deployment
// file is taken against the file's directory, wherever dshhost starts.
func TestRelativeRootFollowsTheConfigFile(t *testing.T) {
	base := workspace(t)
	proj := filepath.Join(base, "proj")
	require.NoError(t, os.MkdirAll(filepath.Join(proj, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "secret.txt"), []byte("s"), 0o644))
	cfg := filepath.Join(base, "dsh.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("workspace: proj\nplugins:\n  - name: fslocal\n    config: {root: proj}\n  - name: fspolicy\n  - name: toolfs\n"), 0o644))
	elsewhere := t.TempDir()
	res := dshhost(t, elsewhere, "", nil, "call", "--config", cfg, "read", `{"file_path":"`+filepath.Join(base, "secret.txt")+`"}`)
	assert.Equal(t, 1, res.code, res.stderr)
	assert.Equal(t, `Error: cannot resolve "`+filepath.Join(base, "secret.txt")+`": outside the workspace`+"\n", res.stdout)
	res = dshhost(t, elsewhere, "", nil, "config", "--config", cfg)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, `"root": "`+proj+`"`)
}

// The smaller items of issue 24: `call TOOL --help` is a request for help,
// not JSON; `call` takes `run`'s --policy; serve's --help shows --watch as
// the boolean it is.
func TestHelpAndPolicyOfCall(t *testing.T) {
	w := workspace(t)
	res := dshhost(t, w, "", nil, "call", "read", "--help")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "usage: dshhost call [flags] TOOL [JSON]\n"), res.stdout)
	assert.Contains(t, res.stdout, "  -policy on|off\n")

	require.NoError(t, os.WriteFile(filepath.Join(w, "a.txt"), []byte("one\n"), 0o644))
	res = dshhost(t, w, "", nil, "call", "--policy", "off", "edit", `{"file_path":"a.txt","old_string":"one","new_string":"two"}`)
	assert.Equal(t, 0, res.code, "without the policy no read is needed: %s %s", res.stdout, res.stderr)
	res = dshhost(t, w, "", nil, "call", "--policy", "on", "edit", `{"file_path":"a.txt","old_string":"two","new_string":"three"}`)
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stdout, "read the file, then retry")

	res = dshhost(t, w, "", nil, "serve", "--help")
	assert.Contains(t, res.stdout, "  -watch\n")
}
