package config_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/host"
)

// Stand-ins for the real plugins, with config types shaped like theirs.
type fsConfig struct {
	Cwd       string `json:"cwd"`
	Root      string `json:"root"`
	HardLinks string `json:"hardLinks"`
}

func (c *fsConfig) UseWorkspace(dir string) {
	if c.Cwd == "" {
		c.Cwd = dir
	}
	if c.Root == "" {
		c.Root = dir
	}
}

func (c *fsConfig) PathKeys() []string { return []string{"cwd", "root"} }

type sandboxConfig struct {
	Mode          string   `json:"mode"`
	Workspace     string   `json:"workspace"`
	WritableRoots []string `json:"writableRoots"`
	SessionSwitch bool     `json:"sessionSwitch"`
}

func (c *sandboxConfig) UseWorkspace(dir string) {
	if c.Workspace == "" {
		c.Workspace = dir
	}
}

// execConfig stands in for exec's: its dir is the deployment's.
type execConfig struct {
	Command []string `json:"command"`
	Dir     string   `json:"-"`
}

func (c *execConfig) UseDir(dir string) { c.Dir = dir }

type toolConfig struct {
	ListMaxEntries int `json:"listMaxEntries"`
	ReadLimit      int `json:"readLimit"`
}

var noop = func(context.Context, *host.Scope, struct{}) error { return nil }

var plugins = map[string]*host.Plugin{
	"fslocal": host.Define("fslocal", func(context.Context, *host.Scope, fsConfig) error { return nil },
		host.Defaults(func() fsConfig { return fsConfig{HardLinks: "preserve"} })),
	"fspolicy": host.Define("fspolicy", noop),
	"mcp":      host.Define("mcp", noop),
	"fssandbox": host.Define("fssandbox", func(context.Context, *host.Scope, sandboxConfig) error { return nil },
		host.Defaults(func() sandboxConfig { return sandboxConfig{Mode: "workspace-write"} })),
	"toolfs": host.Define("toolfs", func(context.Context, *host.Scope, toolConfig) error { return nil },
		host.Defaults(func() toolConfig { return toolConfig{ListMaxEntries: 200, ReadLimit: 2000} })),
	"toolsearch": host.Define("toolsearch", noop),
	"toolfiles":  host.Define("toolfiles", noop),
	"checkpoint": host.Define("checkpoint", noop),
	"exec":       host.Define("exec", func(context.Context, *host.Scope, execConfig) error { return nil }),
}

func lookup(name string) (*host.Plugin, bool) {
	p, ok := plugins[name]
	return p, ok
}

func load(t *testing.T, opts config.Options) (*config.Deployment, error) {
	t.Helper()
	opts.Lookup = lookup
	if opts.Environ == nil {
		opts.Environ = []string{}
	}
	return config.Load(opts)
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

type summary struct {
	ID, Name string
	Disabled bool
	Config   any
}

func summarize(d *config.Deployment) []summary {
	var out []summary
	for _, e := range d.Entries {
		out = append(out, summary{e.ID, e.Name, e.Disabled, e.Config})
	}
	return out
}

func TestEveryFileFormatGivesTheSameDeployment(t *testing.T) {
	ws := t.TempDir()
	files := map[string]string{
		"dsh.yaml": "workspace: " + ws + "\nplugins:\n  - name: fslocal\n  - {name: fspolicy, disabled: true}\n  - name: toolfs\n    config: {readLimit: 2}\n",
		"dsh.json": `{"workspace":"` + ws + `","plugins":[{"name":"fslocal"},{"name":"fspolicy","disabled":true},{"name":"toolfs","config":{"readLimit":2}}]}`,
		"dsh.toml": "workspace = \"" + ws + "\"\n[[plugins]]\nname = \"fslocal\"\n[[plugins]]\nname = \"fspolicy\"\ndisabled = true\n[[plugins]]\nname = \"toolfs\"\n[plugins.config]\nreadLimit = 2\n",
	}
	want := []summary{
		{"fslocal", "fslocal", false, fsConfig{Cwd: ws, Root: ws, HardLinks: "preserve"}},
		{"fspolicy", "fspolicy", true, struct{}{}},
		{"toolfs", "toolfs", false, toolConfig{ListMaxEntries: 200, ReadLimit: 2}},
	}
	for name, text := range files {
		t.Run(name, func(t *testing.T) {
			d, err := load(t, config.Options{File: writeFile(t, name, text)})
			require.NoError(t, err)
			assert.Equal(t, ws, d.Workspace)
			assert.Equal(t, want, summarize(d))
			assert.Len(t, d.Enabled(), 2)
		})
	}
}

func TestDefaultDeploymentUsesTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	d, err := load(t, config.Options{Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, config.DefaultSource, d.Source)
	assert.Equal(t, []summary{
		{"fslocal", "fslocal", false, fsConfig{Cwd: ws, Root: ws, HardLinks: "preserve"}},
		{"fssandbox", "fssandbox", false, sandboxConfig{Mode: "workspace-write", Workspace: ws}},
		{"fspolicy", "fspolicy", false, struct{}{}},
		{"toolfs", "toolfs", false, toolConfig{ListMaxEntries: 200, ReadLimit: 2000}},
		{"toolfiles", "toolfiles", false, struct{}{}},
		{"toolsearch", "toolsearch", false, struct{}{}},
		{"checkpoint", "checkpoint", false, struct{}{}},
		{"mcp", "mcp", false, struct{}{}},
	}, summarize(d))
}

func TestTheSandboxModeIsSetLikeAnyKey(t *testing.T) {
	// sandbox.md §5: flag, environment or file make a read-only server.
	ws := t.TempDir()
	for name, opts := range map[string]config.Options{
		"flag": {Workspace: ws, Set: []string{"fssandbox.mode=read-only"}},
		"env":  {Workspace: ws, Environ: []string{"DSH_FSSANDBOX_MODE=read-only"}},
		"file": {Workspace: ws, File: writeFile(t, "d.yaml", "plugins:\n  - name: fslocal\n  - {name: fssandbox, config: {mode: read-only}}\n")},
	} {
		t.Run(name, func(t *testing.T) {
			d, err := load(t, opts)
			require.NoError(t, err)
			e, ok := d.Entry("fssandbox")
			require.True(t, ok)
			assert.Equal(t, sandboxConfig{Mode: "read-only", Workspace: ws}, e.Config)
		})
	}
	d, err := load(t, config.Options{Workspace: ws, Set: []string{"fssandbox.writableRoots=[../shared-cache, /tmp/x]"}})
	require.NoError(t, err)
	e, _ := d.Entry("fssandbox")
	assert.Equal(t, []string{"../shared-cache", "/tmp/x"}, e.Config.(sandboxConfig).WritableRoots, "a YAML flow list")
}

func TestExplicitRootIsKept(t *testing.T) {
	ws := t.TempDir()
	d, err := load(t, config.Options{Workspace: ws, File: writeFile(t, "d.yaml", "plugins:\n  - name: fslocal\n    config: {root: /}\n")})
	require.NoError(t, err)
	assert.Equal(t, fsConfig{Cwd: ws, Root: "/", HardLinks: "preserve"}, d.Entries[0].Config)
}

func TestLayersFlagOverEnvOverFile(t *testing.T) {
	// host §6 item 21 (first half): flag over DSH_ variable over file.
	file := writeFile(t, "d.yaml", "plugins:\n  - name: toolfs\n    config: {readLimit: 2, listMaxEntries: 3}\n  - name: fspolicy\n")
	readLimit := func(d *config.Deployment) int { return d.Entries[0].Config.(toolConfig).ReadLimit }

	d, err := load(t, config.Options{File: file})
	require.NoError(t, err)
	assert.Equal(t, 2, readLimit(d), "file")

	env := []string{"DSH_TOOLFS_READLIMIT=500", "dsh_fspolicy_disabled=true"}
	d, err = load(t, config.Options{File: file, Environ: env})
	require.NoError(t, err)
	assert.Equal(t, 500, readLimit(d), "env over file")
	assert.Equal(t, 3, d.Entries[0].Config.(toolConfig).ListMaxEntries, "untouched keys keep the file's value")
	assert.True(t, d.Entries[1].Disabled, "DSH_<ID>_DISABLED, matched case-insensitively")

	d, err = load(t, config.Options{File: file, Environ: env, Set: []string{"toolfs.readLimit=7"}, Disable: nil})
	require.NoError(t, err)
	assert.Equal(t, 7, readLimit(d), "flag over env")

	d, err = load(t, config.Options{File: file, Set: []string{"toolfs.read_limit=9"}, Disable: []string{"toolfs"}})
	require.NoError(t, err)
	assert.Equal(t, 9, readLimit(d))
	assert.True(t, d.Entries[0].Disabled)
}

func TestWorkspaceLayers(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, "d.yaml", "workspace: sub\nplugins: []\n")
	require.NoError(t, os.Mkdir(filepath.Join(filepath.Dir(file), "sub"), 0o755))
	d, err := load(t, config.Options{File: file})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(filepath.Dir(file), "sub"), d.Workspace, "a file's relative workspace is taken against the file's directory")
	d, err = load(t, config.Options{File: file, Environ: []string{"DSH_WORKSPACE=" + dir}})
	require.NoError(t, err)
	assert.Equal(t, dir, d.Workspace)
	d, err = load(t, config.Options{File: file, Environ: []string{"DSH_WORKSPACE=/elsewhere"}, Workspace: dir})
	require.NoError(t, err)
	assert.Equal(t, dir, d.Workspace)
}

func TestStrictnessNamesSourceAndKeyPath(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		opts  config.Options
		wants []string
	}{
		{name: "unknown plugin name", file: "plugins:\n  - name: fslcal\n",
			wants: []string{`FILE: plugins[0].name: unknown plugin "fslcal"`}},
		{name: "unknown top-level key", file: "plugin: []\n", wants: []string{"FILE: plugin: unknown key"}},
		{name: "unknown entry key", file: "plugins:\n  - name: toolfs\n    disable: true\n", wants: []string{"FILE: plugins[0].disable: unknown key"}},
		{name: "unknown config key", file: "plugins:\n  - name: toolfs\n    config: {readlimit: 3}\n", wants: []string{"FILE: plugins[0].config.readlimit: unknown key (keys: listMaxEntries, readLimit)"}},
		{name: "a key for a plugin without keys", file: "plugins:\n  - name: fspolicy\n    config: {strict: true}\n",
			wants: []string{"FILE: plugins[0].config.strict: unknown key (this plugin has no config keys)"}},
		{name: "a missing workspace", file: "workspace: nowhere\nplugins: []\n",
			wants: []string{"FILE: workspace: DIR/nowhere is not an existing directory"}},
		{name: "a fraction for an integer", file: "plugins:\n  - name: toolfs\n    config: {readLimit: 2.5}\n",
			wants: []string{"FILE: plugins[0].config.readLimit: expected an integer, got 2.5"}},
		{name: "a string for an integer", file: "plugins:\n  - name: toolfs\n    config: {readLimit: x}\n",
			wants: []string{`FILE: plugins[0].config.readLimit: expected an integer, got string "x"`}},
		{name: "a string for disabled", file: "plugins:\n  - name: toolfs\n    disabled: yes\n",
			wants: []string{`FILE: plugins[0].disabled: expected a boolean, got string "yes"`}},
		{name: "duplicate ids name both paths", file: "plugins:\n  - name: toolfs\n  - name: fspolicy\n    id: toolfs\n",
			wants: []string{`FILE: plugins[1].id: duplicate id "toolfs" (also at plugins[0].id)`}},
		{name: "a wrong type from the environment names the variable", file: "plugins:\n  - name: toolfs\n",
			opts:  config.Options{Environ: []string{"DSH_TOOLFS_READLIMIT=2.5"}},
			wants: []string{"env DSH_TOOLFS_READLIMIT: plugins[0].config.readLimit: expected an integer, got 2.5"}},
		{name: "an unknown key from the environment", file: "plugins:\n  - name: toolfs\n",
			opts:  config.Options{Environ: []string{"DSH_TOOLFS_BOGUS=1"}},
			wants: []string{`env DSH_TOOLFS_BOGUS: plugins[0]: no config key of "toolfs" matches "BOGUS" (keys: listMaxEntries, readLimit)`}},
		{name: "a wrong type from a flag names the flag", file: "plugins:\n  - name: toolfs\n",
			opts:  config.Options{Set: []string{"toolfs.readLimit=x"}},
			wants: []string{`flag --set toolfs.readLimit=x: plugins[0].config.readLimit: expected an integer, got string "x"`}},
		{name: "a flag naming no entry", file: "plugins:\n  - name: toolfs\n",
			opts:  config.Options{Disable: []string{"nope"}, Set: []string{"toolfs.nope=1"}},
			wants: []string{"flag --set toolfs.nope=1: plugins[0].config.nope: unknown key (keys: listMaxEntries, readLimit)", `flag --disable nope: no plugin entry has id "nope"`}},
		{name: "several problems are all reported", file: "plugins:\n  - name: toolfs\n    config: {readLimit: x, listMaxEntries: 1.5}\n",
			wants: []string{"FILE: plugins[0].config.listMaxEntries: expected an integer, got 1.5", `FILE: plugins[0].config.readLimit: expected an integer, got string "x"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, "bad.yaml", tc.file)
			tc.opts.File = file
			_, err := load(t, tc.opts)
			var ce *config.Error
			require.ErrorAs(t, err, &ce)
			var got []string
			for _, is := range ce.Issues {
				got = append(got, is.String())
			}
			var want []string
			for _, w := range tc.wants {
				if len(w) > 5 && w[:5] == "FILE:" {
					w = file + w[4:]
				}
				want = append(want, strings.ReplaceAll(w, "DIR", filepath.Dir(file)))
			}
			assert.Equal(t, want, got)
		})
	}
}

func TestUnknownPluginsAreNamedWithTheRegisteredOnes(t *testing.T) {
	_, err := config.Load(config.Options{File: writeFile(t, "d.yaml", "plugins: [{name: fslcal}]\n"), Lookup: lookup,
		Known: func() []string { return []string{"fslocal", "fspolicy"} }, Environ: []string{}})
	assert.EqualError(t, err, "invalid deployment config:\n  "+filepath.Join(filepath.Dir(err.(*config.Error).Issues[0].Source), "d.yaml")+
		`: plugins[0].name: unknown plugin "fslcal" (registered: fslocal, fspolicy)`)
}

func TestTheLogLevelVariableIsTheCLIs(t *testing.T) {
	_, err := load(t, config.Options{Environ: []string{"DSH_LOG_LEVEL=debug"}, Workspace: t.TempDir()})
	assert.NoError(t, err)
}

func TestTheStateDirectoryVariableConfiguresNoEntry(t *testing.T) {
	_, err := load(t, config.Options{Environ: []string{"DSH_STATE_DIR=/tmp/state"}, Workspace: t.TempDir()})
	assert.NoError(t, err)
}

func TestDeclaredConfigLeavesWorkspaceKeysUnset(t *testing.T) {
	ws := t.TempDir()
	d, err := load(t, config.Options{Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, fsConfig{HardLinks: "preserve"}, d.Entries[0].Declared)
	assert.Equal(t, fsConfig{Cwd: ws, Root: ws, HardLinks: "preserve"}, d.Entries[0].Config)
}

func TestUnknownFormatAndMissingFile(t *testing.T) {
	_, err := load(t, config.Options{File: writeFile(t, "d.ini", "x=1")})
	assert.ErrorContains(t, err, "unknown config format")
	_, err = load(t, config.Options{File: filepath.Join(t.TempDir(), "none.yaml")})
	assert.ErrorContains(t, err, "none.yaml")
}

// TestRelativePathKeys: a relative `root:` in a file resolves against the file's directory, as `workspace:` does, so the
// same file confines the same way wherever it is started; from the
// environment or a flag, against the working directory.
func TestRelativePathKeys(t *testing.T) {
	file := writeFile(t, "d.yaml", "plugins:\n  - name: fslocal\n    config: {root: proj, cwd: proj/src}\n")
	fileDir := filepath.Dir(file)
	wd := t.TempDir()
	fs := func(d *config.Deployment) fsConfig { return d.Entries[0].Config.(fsConfig) }
	d, err := load(t, config.Options{File: file, Dir: wd})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(fileDir, "proj"), fs(d).Root)
	assert.Equal(t, filepath.Join(fileDir, "proj/src"), fs(d).Cwd)
	d, err = load(t, config.Options{File: file, Dir: wd, Set: []string{"fslocal.root=here"}, Environ: []string{"DSH_FSLOCAL_CWD=there"}})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(wd, "here"), fs(d).Root, "a flag's value is taken against the working directory")
	assert.Equal(t, filepath.Join(wd, "there"), fs(d).Cwd, "an env value too")
	d, err = load(t, config.Options{File: file, Dir: wd, Set: []string{"fslocal.root=/abs"}})
	require.NoError(t, err)
	assert.Equal(t, "/abs", fs(d).Root, "absolute values are kept")
}

// TestDirUsersGetTheDeploymentsDirectory: plugin-protocol.md §3, an exec
// entry's command and working directory are taken against the deployment
// file's directory, wherever dshhost is started.
func TestDirUsersGetTheDeploymentsDirectory(t *testing.T) {
	file := writeFile(t, "d.yaml", "plugins:\n  - name: exec\n    config: {command: [./guard.py]}\n")
	wd := t.TempDir()
	d, err := load(t, config.Options{File: file, Dir: wd})
	require.NoError(t, err)
	assert.Equal(t, execConfig{Command: []string{"./guard.py"}, Dir: filepath.Dir(file)}, d.Entries[0].Config)
	assert.Equal(t, execConfig{Command: []string{"./guard.py"}}, d.Entries[0].Declared, "the declared config is left as written")
}

func TestWatchKey(t *testing.T) {
	ws := t.TempDir()
	d, err := load(t, config.Options{Workspace: ws, File: writeFile(t, "d.yaml", "watch: true\nplugins: []\n")})
	require.NoError(t, err)
	assert.True(t, d.Watch)
	d, err = load(t, config.Options{Workspace: ws, File: writeFile(t, "d.yaml", "plugins: []\n")})
	require.NoError(t, err)
	assert.False(t, d.Watch)
	file := writeFile(t, "d.yaml", "watch: yes\nplugins: []\n")
	_, err = load(t, config.Options{Workspace: ws, File: file})
	assert.EqualError(t, err, "invalid deployment config:\n  "+file+`: watch: expected a boolean, got string "yes"`)
}

// host §6 item 21 (second half): each Load is built fresh, so a reload of a
// file that lost a key no longer has it.
func TestALoadAfterAKeyIsRemovedForgetsIt(t *testing.T) {
	ws := t.TempDir()
	file := writeFile(t, "d.yaml", "plugins:\n  - name: toolfs\n    config: {readLimit: 3}\n")
	d, err := load(t, config.Options{Workspace: ws, File: file})
	require.NoError(t, err)
	assert.Equal(t, 3, d.Entries[0].Config.(toolConfig).ReadLimit)
	require.NoError(t, os.WriteFile(file, []byte("plugins:\n  - name: toolfs\n"), 0o644))
	d, err = load(t, config.Options{Workspace: ws, File: file})
	require.NoError(t, err)
	assert.Equal(t, 2000, d.Entries[0].Config.(toolConfig).ReadLimit, "back to the default")
}

// A deployment path that is not a regular file (a FIFO swapped in under a
// watching serve, a directory) fails the load at once, never blocking on
// the read.
func TestANonRegularFileIsRefusedAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "d.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	done := make(chan error, 1)
	go func() {
		_, err := load(t, config.Options{Workspace: t.TempDir(), File: fifo})
		done <- err
	}()
	select {
	case err := <-done:
		assert.EqualError(t, err, "invalid deployment config:\n  "+fifo+": not a regular file (a named pipe)")
	case <-time.After(5 * time.Second):
		// Unblock the reader so the test ends.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("loading a FIFO blocked")
	}
	dir := filepath.Join(t.TempDir(), "dir.yaml")
	require.NoError(t, os.Mkdir(dir, 0o755))
	_, err := load(t, config.Options{Workspace: t.TempDir(), File: dir})
	assert.ErrorContains(t, err, ": not a regular file (a directory)")
}

// Invalid UTF-8 is never turned into U+FFFD: a --set value keeps its bytes
// (a path may hold them), and a file that is not UTF-8 is refused.
func TestInvalidUTF8IsKeptOrRefusedNeverReplaced(t *testing.T) {
	ws := t.TempDir()
	odd := filepath.Join(ws, "a\xffb")
	require.NoError(t, os.Mkdir(odd, 0o755))
	d, err := load(t, config.Options{Workspace: ws, File: writeFile(t, "d.yaml", "plugins:\n  - name: fslocal\n"), Set: []string{"fslocal.root=" + odd}})
	require.NoError(t, err)
	assert.Equal(t, odd, d.Entries[0].Config.(fsConfig).Root)

	for _, name := range []string{"d.yaml", "d.json"} {
		file := writeFile(t, name, "{\"plugins\": [{\"name\": \"fslocal\", \"config\": {\"root\": \""+odd+"\"}}]}\n")
		_, err = load(t, config.Options{Workspace: ws, File: file})
		assert.EqualError(t, err, "invalid deployment config:\n  "+file+": not valid UTF-8", name)
	}
}
