package toolfiles_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/toolfiles"
	"github.com/dsh-go/dsh/plugins/tools"
)

func names(reg *tools.Registry) []string {
	var out []string
	for _, t := range reg.Tools() {
		out = append(out, t.Name)
	}
	return out
}

// TestEveryTextIsInTheDocs: docs/files.md gives every description, schema
// and prompt section byte for byte.
func TestEveryTextIsInTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/files.md")
	require.NoError(t, err)
	for _, text := range toolfiles.Texts {
		assert.Contains(t, string(doc), text)
	}
}

func TestEachToolCanBeSwitchedOff(t *testing.T) {
	st := stacktest.New(t, stacktest.Options{ToolFiles: map[string]any{"move": false, "fileInfo": false}})
	assert.Equal(t, []string{"list", "read", "write", "edit", "delete", "mkdir", "glob", "grep"}, names(st.Registry))
	require.NoError(t, st.ToolFiles.Update(t.Context(), toolfiles.DefaultConfig()))
	assert.Equal(t, []string{"list", "read", "write", "edit", "glob", "grep", "move", "delete", "mkdir", "file_info"}, names(st.Registry))
	var sections []string
	for _, s := range st.Registry.Sections() {
		sections = append(sections, s.Name)
	}
	assert.Subset(t, sections, []string{"tool:move", "tool:delete", "tool:mkdir", "tool:file_info"})
}

func TestABadLineCountBoundIsRefused(t *testing.T) {
	err := toolfiles.Config{LineCountMaxSize: 0}.Validate()
	assert.EqualError(t, err, `plugin "toolfiles": invalid config: lineCountMaxSize: toolfiles: lineCountMaxSize must be a positive integer`)
}

// bare hides every optional capability of the provider it wraps.
type bare struct{ fsapi.FileSystem }

// withEntries adds only ResolveEntry.
type withEntries struct {
	fsapi.FileSystem
	fsapi.EntryResolver
}

// TestToolsFollowTheProvidersCapabilities: a provider that cannot name
// entries gets no tool; one that can name them but not move, remove or make
// directories gets only file_info.
func TestToolsFollowTheProvidersCapabilities(t *testing.T) {
	st := stacktest.New(t, stacktest.Options{})
	p := fsapi.Key.Must(st.Host.Root())
	for name, c := range map[string]struct {
		fs   fsapi.FileSystem
		want []string
	}{
		"bare":          {bare{p}, nil},
		"entries alone": {withEntries{p, p.(fsapi.EntryResolver)}, []string{"file_info"}},
	} {
		t.Run(name, func(t *testing.T) {
			h := host.New()
			t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
			reg := tools.NewRegistry()
			_, err := tools.Key.Provide(h.Root(), reg)
			require.NoError(t, err)
			_, err = fsapi.Key.Provide(h.Root(), c.fs)
			require.NoError(t, err)
			inst, err := h.Plugin(t.Context(), toolfiles.Plugin, nil)
			require.NoError(t, err)
			require.NoError(t, inst.Wait(t.Context()))
			assert.Equal(t, c.want, names(reg))
		})
	}
}
