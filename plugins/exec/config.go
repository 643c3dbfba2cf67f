package exec

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Config is an exec entry's config (plugin-protocol.md §2–§3).
type Config struct {
	// Command is the child's argv, run without a shell. A command[0] with
	// a slash is taken against the deployment file's directory when
	// relative; one without is looked up in the server's PATH. Required.
	Command []string `json:"command"`
	// Env is added to the child's minimal environment (the server's PATH,
	// HOME and LANG). Default: nothing added.
	Env map[string]string `json:"env"`
	// Timeout bounds the initialize exchange and each intent request.
	// Default 2s.
	Timeout time.Duration `json:"timeout"`
	// OnFailure is `block` (a failure fails the call, and a failed
	// initialize fails the entry) or `allow` (the call goes on as if the
	// plugin had answered next, with a warning). Default block.
	OnFailure wire.OnFailure `json:"onFailure"`
	// Settings are passed to the plugin in initialize, never interpreted.
	// Default: {}.
	Settings map[string]any `json:"settings"`
	// Queue bounds the notifications (fs/observed, conversation/closed)
	// waiting for the child; when it is full the oldest is dropped and
	// counted. Default 1000.
	Queue int `json:"queue"`
	// MaxArgumentBytes bounds an intent's arguments on the wire, in bytes
	// of JSON; larger ones are sent as null with argumentsOmitted. Default
	// 1048576 (1 MiB).
	MaxArgumentBytes int `json:"maxArgumentBytes"`

	// Dir is the deployment file's directory (config.DirUser): the base
	// of a relative command[0] and the child's working directory. Empty:
	// the server's working directory.
	Dir string `json:"-"`
	// Workspace is the deployment's workspace (config.WorkspaceUser),
	// sent in initialize and the base of every target's rel.
	Workspace string `json:"-"`
}

// DefaultConfig returns the defaults: timeout 2s, onFailure block, queue
// 1000, maxArgumentBytes 1 MiB.
func DefaultConfig() Config {
	return Config{Timeout: 2 * time.Second, OnFailure: wire.Block, Queue: 1000, MaxArgumentBytes: wire.DefaultMaxArgumentBytes}
}

// scripts returns the files the child runs, the entry's protected
// deployment files (fsapi.Protect, ProtectConfig): command[0] when it is a
// path (with a slash, taken against Dir), and every later argument that
// names an existing regular file against Dir (the script an interpreter
// such as python3 or node runs). A program found in PATH is not one.
func (c Config) scripts() []string {
	var files []string
	abs := func(p string) string {
		if filepath.IsAbs(p) || c.Dir == "" {
			return p
		}
		return filepath.Join(c.Dir, p)
	}
	for i, arg := range c.Command {
		if i == 0 {
			if strings.Contains(arg, "/") {
				files = append(files, abs(arg))
			}
			continue
		}
		if fi, err := os.Stat(abs(arg)); err == nil && fi.Mode().IsRegular() {
			files = append(files, abs(arg))
		}
	}
	return files
}

// outsideWorkspace refuses the entry when code the child runs could be
// planted or changed through the tools: when the child's working
// directory (Dir, on Python's module path for `-m` and `-c`, the base of
// a shell's relative names), the program command[0] (a path, or what PATH
// finds), or a file or directory an argument names (the argument itself
// or the value after the first "=" of a `--flag=value`, against Dir), or
// the directory that holds it, is the workspace or beneath it (real
// paths). An interpreter imports from its script's directory first, so a
// module written beside the script would run with the server's
// privileges. Without a workspace nothing is checked. The error names
// the key, the file and the workspace.
func (c Config) outsideWorkspace() error {
	ws := fsapi.RealLocation(c.Workspace)
	if c.Workspace == "" {
		return nil
	}
	inside := func(p string) bool {
		r := fsapi.RealLocation(p)
		return ws == "/" || r == ws || strings.HasPrefix(r, ws+string(filepath.Separator))
	}
	refuse := func(key, what, p string) error {
		return &host.ConfigError{Plugin: "exec", Issues: []host.ConfigIssue{{Path: key, Problem: fmt.Sprintf(
			"exec: %s %q is inside the workspace %q, where the tools could change it or plant code beside it; keep the plugin's files, and the deployment file of an exec entry, outside the workspace", what, p, c.Workspace)}}}
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) || c.Dir == "" {
			return filepath.Clean(p)
		}
		return filepath.Join(c.Dir, p)
	}
	dir := c.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if inside(dir) {
		return refuse("command", "the working directory (the deployment file's directory)", dir)
	}
	for i, arg := range c.Command {
		key := fmt.Sprintf("command[%d]", i)
		names := []string{arg}
		if _, v, ok := strings.Cut(arg, "="); ok && v != "" {
			names = append(names, v)
		}
		if i == 0 && !strings.Contains(arg, "/") {
			found, err := osexec.LookPath(arg)
			if err != nil {
				continue // launch reports it
			}
			names = []string{found}
		}
		for _, n := range names {
			p := abs(n)
			if _, err := os.Stat(p); err != nil && !(i == 0 && strings.Contains(arg, "/")) {
				continue
			}
			if inside(p) {
				return refuse(key, "the file", p)
			}
			if inside(filepath.Dir(p)) {
				return refuse(key, "the directory of", p)
			}
		}
	}
	return nil
}

// UseDir sets Dir when unset (config.DirUser).
func (c *Config) UseDir(dir string) {
	if c.Dir == "" {
		c.Dir = dir
	}
}

// UseWorkspace sets Workspace when unset (config.WorkspaceUser).
func (c *Config) UseWorkspace(dir string) {
	if c.Workspace == "" {
		c.Workspace = dir
	}
}

// Validate checks every key before apply; each problem is reported at its
// key path, e.g. `command: exec: a command is required`.
func (c Config) Validate() error {
	var issues []host.ConfigIssue
	add := func(path, problem string) {
		issues = append(issues, host.ConfigIssue{Path: path, Problem: "exec: " + problem})
	}
	switch {
	case len(c.Command) == 0:
		add("command", "a command is required: the child's argv, e.g. [python3, guard.py]")
	case fsapi.IsBlank(c.Command[0]):
		add("command[0]", "the program must be a non-empty string")
	}
	for k := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			add("env", fmt.Sprintf("%q is not a variable name", k))
		}
	}
	wire.CheckKeys(c.Timeout, c.OnFailure, c.Queue, c.MaxArgumentBytes, add)
	if len(issues) > 0 {
		return &host.ConfigError{Plugin: "exec", Issues: issues}
	}
	return nil
}
