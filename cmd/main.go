package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/host"
)

// program is the name the CLI calls itself in usage, errors and --version:
// the binary's base name, so a custom build says its own name.
var program = "dshhost"

// Version is the dshhost version printed by --version; release builds set
// it with -ldflags "-X github.com/dsh-go/dsh/cmd.Version=...".
var Version = "0.1.0-dev"

// Env is what a command reads and writes besides its arguments; tests
// substitute it. Zero fields mean the process's own.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Environ is the environment (for DSH_ variables); nil means
	// os.Environ().
	Environ []string
	// Dir is the working directory used as the default workspace; empty
	// means the process's.
	Dir string
}

func (e *Env) fill() {
	if e.Stdin == nil {
		e.Stdin = os.Stdin
	}
	if e.Stdout == nil {
		e.Stdout = os.Stdout
	}
	if e.Stderr == nil {
		e.Stderr = os.Stderr
	}
	if e.Environ == nil {
		e.Environ = os.Environ()
	}
}

// Main runs dshhost with args (without the program name) on the process's
// stdio and returns the exit code. plugins are registered in addition to
// those registered by the binary's imports (a custom binary may pass its own
// here instead of registering them in init); one whose name is already
// registered by another plugin fails with exit 2.
func Main(args []string, plugins ...*host.Plugin) int {
	if len(os.Args) > 0 && os.Args[0] != "" {
		program = filepath.Base(os.Args[0])
	}
	if err := register(plugins); err != nil {
		fmt.Fprintln(os.Stderr, program+":", err)
		return 2
	}
	return Run(context.Background(), Env{}, args)
}

// register adds the plugins passed to Main to the compile-time registry. A
// plugin already registered (by an import) is accepted again; another
// plugin under a registered name fails, as a duplicate host.Register does,
// instead of being silently dropped in favour of the built-in.
func register(plugins []*host.Plugin) error {
	for _, p := range plugins {
		if p == nil || p.Name() == "" {
			return errors.New("a plugin passed to cmd.Main has no name")
		}
		prev, ok := host.Lookup(p.Name())
		switch {
		case !ok:
			host.Register(p)
		case prev != p:
			return fmt.Errorf("plugin %q registered twice: a plugin passed to cmd.Main has the name of one already registered", p.Name())
		}
	}
	return nil
}

// command is one subcommand.
type command struct {
	name, args, summary string
	run                 func(ctx context.Context, env Env, c *common, rest []string) int
	extra               func(fs *flag.FlagSet, c *common)
}

var commands = []command{
	{name: "serve", summary: "serve the tools to MCP clients over stdio, or streamable HTTP with --http", run: serve,
		extra: func(fs *flag.FlagSet, c *common) {
			fs.BoolVar(&c.watch, "watch", false, "reload the deployment when the --config file changes (also watch: true in the file)")
			c.transport.register(fs)
		}},
	{name: "call", args: "TOOL [JSON]", summary: "run one tool call in a fresh conversation and print its text (exit 1 on a tool error)", run: call,
		extra: policyFlag},
	{name: "run", args: "SCRIPT|-", summary: "run a script of tool calls in one conversation (a JSON array or JSON lines of {\"tool\":NAME,\"args\":{...}}) and print one JSON result line per call", run: runScript,
		extra: policyFlag},
	{name: "checkpoints", summary: "print every step the tools made in this workspace, one line each, oldest first", run: listCheckpoints},
	{name: "rewind", args: "STEP", summary: "put every file changed after step STEP back as it was right after it (0: before the first step)", run: rewindCommand,
		extra: pathsFlag},
	{name: "tools", summary: "print the tools' schemas as JSON", run: listTools},
	{name: "prompt", summary: "print the assembled prompt sections", run: printPrompt},
	{name: "plugins", summary: "print each plugin instance: id, name, state, provides, injects, error", run: listPlugins,
		extra: func(fs *flag.FlagSet, c *common) { fs.BoolVar(&c.json, "json", false, "print JSON instead of a table") }},
	{name: "config", summary: "print the effective deployment after files, env and flags", run: printConfig},
}

// policyFlag registers --policy, of call and run.
func policyFlag(fs *flag.FlagSet, c *common) {
	fs.StringVar(&c.policy, "policy", "", "`on|off`: mount or disable the fspolicy entry, whatever the config says")
}

// Run runs dshhost with args in env and returns the exit code.
func Run(ctx context.Context, env Env, args []string) int {
	env.fill()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.Stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		fmt.Fprintln(env.Stdout, program, Version)
		return 0
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == args[0] })
	if i < 0 && strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(env.Stderr, "%s: flags go after the command: %s COMMAND [flags] [args] (got %q first)\n\n", program, program, args[0])
		usage(env.Stderr)
		return 2
	}
	if i < 0 {
		fmt.Fprintf(env.Stderr, "%s: unknown command %q\n\n", program, args[0])
		usage(env.Stderr)
		return 2
	}
	cmd := commands[i]
	fs := flag.NewFlagSet(program+" "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	c := &common{}
	c.register(fs)
	if cmd.extra != nil {
		cmd.extra(fs, c)
	}
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s %s [flags] %s\n\n%s.\n\nflags (before the arguments):\n", program, cmd.name, cmd.args, cmd.summary)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(env.Stderr)
	}
	fs.Usage = func() {} // printed below, once, on the right stream
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(env.Stdout)
			return 0
		}
		usage(env.Stderr)
		return 2
	}
	for _, a := range fs.Args() {
		if a == "-h" || a == "-help" || a == "--help" {
			usage(env.Stdout) // `call read --help` asks for help, not a call with JSON "--help"
			return 0
		}
		if name, ok := strings.CutPrefix(strings.TrimPrefix(a, "-"), "-"); ok || (strings.HasPrefix(a, "-") && a != "-") {
			if name == "" {
				name = strings.TrimPrefix(a, "-")
			}
			name, _, _ = strings.Cut(name, "=")
			if fs.Lookup(name) != nil {
				fmt.Fprintf(env.Stderr, "%s %s: flag %s must come before the arguments\n", program, cmd.name, a)
				return 2
			}
		}
	}
	return cmd.run(ctx, env, c, fs.Args())
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "%s runs the dsh filesystem tools (list, read, write, edit, glob, grep, move, delete, rewind, ...) for AI agents.\n", program)
	fmt.Fprintf(w, "\nusage: %s COMMAND [flags] [args]\n\ncommands:\n", program)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nEvery command takes --config FILE, --workspace DIR, --disable ID, --set ID.key=value and")
	fmt.Fprintf(w, "--log-level LEVEL, before its positional arguments. '%s COMMAND --help' describes one\n", program)
	fmt.Fprintf(w, "command and its own flags; '%s --version' prints the version. Configuration:\n", program)
	fmt.Fprintln(w, "docs/configuration.md.")
}

// common holds the flags every command takes.
type common struct {
	config, workspace, logLevel, policy string
	disable, set, paths                 listFlag
	json, watch                         bool
	transport                           transportFlags // serve's own
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "deployment `FILE` (.yaml, .yml, .json or .toml); default: the embedded deployment")
	fs.StringVar(&c.workspace, "workspace", "", "workspace `DIR` (default: DSH_WORKSPACE, the config's workspace, or the current directory; serve --http needs one of the first three)")
	fs.Var(&c.disable, "disable", "disable the plugin entry with this `ID` (repeatable)")
	fs.Var(&c.set, "set", "override one config key, `ID.key=value`, value read as YAML (repeatable)")
	fs.StringVar(&c.logLevel, "log-level", "", "log `level` on stderr: debug, info, warn or error (default warn; info for serve)")
}

// lookupEnv returns the value of name in environ (case-insensitive name).
func lookupEnv(environ []string, name string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// logger returns the stderr logger at the chosen level: --log-level, else
// DSH_LOG_LEVEL, else fallback.
func (c *common) logger(env Env, fallback slog.Level) (*slog.Logger, error) {
	level := fallback
	name, source := c.logLevel, "--log-level"
	if name == "" {
		name, source = lookupEnv(env.Environ, config.LogLevelVariable), config.LogLevelVariable
	}
	if name != "" {
		if err := level.UnmarshalText([]byte(name)); err != nil {
			return nil, fmt.Errorf("%s: unknown log level %q (valid: debug, info, warn, error)", source, name)
		}
	}
	return slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level})), nil
}
