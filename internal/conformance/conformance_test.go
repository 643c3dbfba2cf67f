package conformance_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/conformance"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

func TestMain(m *testing.M) {
	syscall.Umask(0o022) // the cases' mode checks assume it
	os.Exit(m.Run())
}

// TestConformanceCases runs every case of testdata/cases.json in one
// session against the real plugins on a real temporary directory, checking
// the model-visible text byte for byte, the code, and the files afterwards.
func TestConformanceCases(t *testing.T) {
	cases, err := conformance.Cases()
	require.NoError(t, err)
	runCases(t, cases)
}

// TestSearchConformanceCases runs every case of
// testdata/search-cases.json the same way, with toolsearch's overrides
// (search.md §8).
func TestSearchConformanceCases(t *testing.T) {
	cases, err := conformance.SearchCases()
	require.NoError(t, err)
	runCases(t, cases)
}

// TestSandboxConformanceCases runs testdata/sandbox-cases.json the same
// way, each case with fssandbox mounted right after fslocal (sandbox.md §5).
func TestSandboxConformanceCases(t *testing.T) {
	cases, err := conformance.SandboxCases()
	require.NoError(t, err)
	for _, c := range cases {
		require.NotNil(t, c.FSSandbox, "%s: every sandbox case has the fssandbox key", c.Name)
	}
	runCases(t, cases)
}

// TestEditorConformanceCases runs testdata/editor-cases.json the same way,
// each case with a tooleditor key with tooleditor mounted after toolfs
// (editor.md §16).
func TestEditorConformanceCases(t *testing.T) {
	cases, err := conformance.EditorCases()
	require.NoError(t, err)
	runCases(t, cases)
}

// TestFilesConformanceCases runs testdata/files-cases.json (the entry tools
// and read's images, docs/files.md) the same way.
func TestFilesConformanceCases(t *testing.T) {
	cases, err := conformance.FilesCases()
	require.NoError(t, err)
	runCases(t, cases)
}

func runCases(t *testing.T, cases []conformance.Case) {
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			w, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			require.NoError(t, c.Build(w))
			st := stacktest.New(t, stacktest.Options{NoPolicy: !c.Policy, ToolFS: c.ToolFS, ToolSearch: c.ToolSearch, ToolFiles: c.ToolFiles, FSLocal: c.FSLocal, W: w, FSSandbox: c.FSSandboxFor(w), ToolEditor: c.ToolEditor})
			if c.ProtectedConfig != "" {
				file := filepath.Join(w, c.ProtectedConfig)
				require.NoError(t, os.WriteFile(file, []byte(c.DeploymentFile(w)), 0o644))
				st.Protected.Add(fsapi.ProtectConfig, file)
			}
			session := st.Conversation("conformance")
			require.Len(t, c.Expect, len(c.Calls))
			for i, call := range c.Calls {
				res := st.Registry.Execute(t.Context(), call.Tool, call.ArgsFor(w), &tools.Exec{Conv: session})
				want := c.Expect[i]
				assert.NoError(t, want.CheckText(w, res.Text()), "call %d (%s %s): text", i, call.Tool, call.Args)
				assert.Equal(t, want.IsError, res.IsError, "call %d: isError", i)
				assert.Equal(t, want.Code, res.Code(), "call %d: code", i)
			}
			assert.Empty(t, c.CheckFiles(w), "files after")
		})
	}
}
