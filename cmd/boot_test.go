package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// TestTheIssueSampleBootsAsItIs: a deployment file that lists its entries
// with ids and configs boots as written, the policy is off and toolfs reads
// 2 lines at a time.
func TestTheIssueSampleBootsAsItIs(t *testing.T) {
	w := workspace(t)
	cfg := writeFile(t, filepath.Join(t.TempDir(), "dsh.yaml"),
		"plugins: [{name: fslocal}, {name: fspolicy, disabled: true}, {name: toolfs, config: {readLimit: 2}}]\n")
	writeFile(t, filepath.Join(w, "a.txt"), "one\ntwo\nthree\n")
	res := dshhost(t, w, "", nil, "call", "--config", cfg, "read", `{"file_path":"a.txt"}`)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "(Showing lines 1-2 of 3. Use offset=3 to continue.)")
	res = dshhost(t, w, "", nil, "call", "--config", cfg, "write", `{"file_path":"a.txt","content":"clobber"}`)
	assert.Equal(t, 0, res.code, "with the policy disabled an unread overwrite succeeds: %s", res.stdout)
}

// TestPolicyToggles: with the policy on, an unread overwrite is refused;
// turned off by config, by --disable, by DSH_FSPOLICY_DISABLED or by run's
// --policy off, it succeeds.
func TestPolicyToggles(t *testing.T) {
	overwrite := `{"file_path":"a.txt","content":"clobber"}`
	fresh := func(t *testing.T) string {
		w := workspace(t)
		writeFile(t, filepath.Join(w, "a.txt"), "original")
		return w
	}
	t.Run("on by default", func(t *testing.T) {
		w := fresh(t)
		res := dshhost(t, w, "", nil, "call", "write", overwrite)
		assert.Equal(t, 1, res.code)
		assert.Equal(t, `Error: cannot overwrite existing "`+w+`/a.txt" without reading it first — read the file, then retry`+"\n", res.stdout)
	})
	offs := map[string]func(t *testing.T, w string) result{
		"off by config": func(t *testing.T, w string) result {
			cfg := writeFile(t, filepath.Join(t.TempDir(), "d.json"), `{"plugins":[{"name":"fslocal"},{"name":"fspolicy","disabled":true},{"name":"toolfs"}]}`)
			return dshhost(t, w, "", nil, "call", "--config", cfg, "write", overwrite)
		},
		"off by --disable": func(t *testing.T, w string) result {
			return dshhost(t, w, "", nil, "call", "--disable", "fspolicy", "write", overwrite)
		},
		"off by the environment": func(t *testing.T, w string) result {
			return dshhost(t, w, "", []string{"DSH_FSPOLICY_DISABLED=true"}, "call", "write", overwrite)
		},
		"off by run --policy": func(t *testing.T, w string) result {
			res := dshhost(t, w, `{"tool":"write","args":`+overwrite+`}`, nil, "run", "--policy", "off", "-")
			if res.code == 0 && strings.Contains(res.stdout, `"isError":true`) {
				res.code = 1
			}
			return res
		},
	}
	for name, run := range offs {
		t.Run(name, func(t *testing.T) {
			w := fresh(t)
			res := run(t, w)
			assert.Equal(t, 0, res.code, "%s%s", res.stdout, res.stderr)
			got, err := os.ReadFile(filepath.Join(w, "a.txt"))
			require.NoError(t, err)
			assert.Equal(t, "clobber", string(got))
		})
	}
}

// TestBootAudit is host §6 item 20: a plugin left PENDING is reported with
// its missing services, a FAILED one with its error, and dshhost exits 2.
func TestBootAudit(t *testing.T) {
	w := workspace(t)
	t.Run("pending with its missing services", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "call", "--disable", "fslocal", "list", "{}")
		assert.Equal(t, 2, res.code)
		assert.Contains(t, res.stderr, `plugin "toolfs" (id "toolfs") is PENDING: waiting for services "fs"`)
		assert.Empty(t, res.stdout)
	})
	t.Run("failed with its error", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "call", "--set", "fslocal.root="+filepath.Join(w, "missing"), "list", "{}")
		assert.Equal(t, 2, res.code)
		assert.Contains(t, res.stderr, `plugin "fslocal" (id "fslocal") is FAILED: plugin "fslocal": fslocal: root must be an existing directory`)
		assert.Contains(t, res.stderr, `plugin "toolfs" (id "toolfs") is PENDING: waiting for services "fs"`)
	})
	t.Run("an invalid config starts nothing", func(t *testing.T) {
		res := dshhost(t, w, "", []string{"DSH_TOOLFS_READLIMIT=x"}, "call", "list", "{}")
		assert.Equal(t, 2, res.code)
		assert.Contains(t, res.stderr, `env DSH_TOOLFS_READLIMIT: plugins[3].config.readLimit: toolfs: readLimit must be a positive integer`)
	})
}

func TestInformationCommands(t *testing.T) {
	w := workspace(t)
	t.Run("tools prints the exact schemas in registration order", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "tools", "--set", "toolfs.readLimit=2")
		require.Equal(t, 0, res.code, res.stderr)
		for _, s := range []string{`"name": "list"`, `"name": "read"`, `"name": "write"`, `"name": "edit"`, `Defaults to 2.`} {
			assert.Contains(t, res.stdout, s)
		}
		assert.Less(t, strings.Index(res.stdout, `"name": "list"`), strings.Index(res.stdout, `"name": "edit"`))
	})
	t.Run("prompt joins the eleven sections with blank lines", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "prompt")
		require.Equal(t, 0, res.code)
		assert.Equal(t, 11, len(strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n\n")))
		assert.True(t, strings.HasPrefix(res.stdout, "Use the list tool — not shell ls"))
	})
	t.Run("plugins lists every instance with state, provides and injects", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "plugins", "--json")
		require.Equal(t, 0, res.code)
		assert.Contains(t, res.stdout, `"id": "toolfs"`)
		assert.Contains(t, res.stdout, `"state": "ACTIVE"`)
		assert.Contains(t, res.stdout, `"injects": [
      "fs",
      "tools"
    ]`)
	})
	t.Run("config prints the effective deployment, layers applied, reusable with another workspace", func(t *testing.T) {
		res := dshhost(t, w, "", []string{"DSH_TOOLFS_READLIMIT=500"}, "config", "--set", "toolfs.listMaxEntries=7")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stdout, `"readLimit": 500`)
		assert.Contains(t, res.stdout, `"listMaxEntries": 7`)
		assert.Contains(t, res.stdout, `"workspace": "`+w+`"`)
		assert.Contains(t, res.stdout, `"root": ""`, "the workspace fills root and cwd; they are not pinned")
		saved := writeFile(t, filepath.Join(t.TempDir(), "saved.json"), strings.Replace(res.stdout, `"workspace": "`+w+`",`, "", 1))
		other := workspace(t)
		writeFile(t, filepath.Join(other, "here.txt"), "x")
		res = dshhost(t, w, "", nil, "call", "--config", saved, "--workspace", other, "list", "{}")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stdout, "here.txt")
	})
	t.Run("plugins shows a failed boot's instances, then exits 2", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "plugins", "--set", "fslocal.root="+filepath.Join(w, "missing"))
		assert.Equal(t, 2, res.code)
		assert.Contains(t, res.stdout, "FAILED")
		assert.Contains(t, res.stdout, "fslocal: root must be an existing directory")
		assert.Contains(t, res.stderr, "boot failed")
	})
	t.Run("a missing workspace is named as such", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "call", "--workspace", filepath.Join(w, "nope"), "list", "{}")
		assert.Equal(t, 2, res.code)
		assert.Contains(t, res.stderr, "flag --workspace: workspace: "+filepath.Join(w, "nope")+" is not an existing directory")
	})
	t.Run("flags after the arguments are refused with a reason", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "call", "list", "{}", "--workspace", w)
		assert.Equal(t, 2, res.code)
		assert.Contains(t, res.stderr, "flag --workspace must come before the arguments")
	})
	t.Run("an unobserved edit through call explains sessions", func(t *testing.T) {
		writeFile(t, filepath.Join(w, "e.txt"), "x")
		res := dshhost(t, w, "", nil, "call", "edit", `{"file_path":"e.txt","old_string":"x","new_string":"y"}`)
		assert.Equal(t, 1, res.code)
		assert.Contains(t, res.stderr, "each call is its own conversation")
	})
	t.Run("every command has --help, and --version works", func(t *testing.T) {
		for _, c := range []string{"serve", "call", "run", "tools", "prompt", "plugins", "config"} {
			res := dshhost(t, w, "", nil, c, "--help")
			assert.Equal(t, 0, res.code, c)
			assert.Contains(t, res.stdout, "usage: dshhost "+c, c)
		}
		res := dshhost(t, w, "", nil, "--help")
		assert.Contains(t, res.stdout+res.stderr, "runs the dsh filesystem tools (list, read, write, edit, glob, grep, move, delete, rewind, ...)", "the overview names the search tools")
		res = dshhost(t, w, "", nil, "--version")
		assert.Equal(t, 0, res.code)
		assert.Contains(t, res.stdout, "dshhost ")
	})
	t.Run("call exits 1 on a tool error and 2 on bad usage", func(t *testing.T) {
		res := dshhost(t, w, "", nil, "call", "read", `{"file_path":"missing.txt"}`)
		assert.Equal(t, 1, res.code)
		assert.Equal(t, `Error: cannot read "`+w+`/missing.txt": not found`+"\n", res.stdout)
		assert.Equal(t, 2, dshhost(t, w, "", nil, "call").code)
		assert.Equal(t, 2, dshhost(t, w, "", nil, "frobnicate").code)
	})
}
