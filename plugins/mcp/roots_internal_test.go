package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheFirstUsableRootIsTheWorkspace(t *testing.T) {
	home := t.TempDir()
	proj := t.TempDir()
	file := filepath.Join(proj, "f.txt")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	homeFn := func() (string, error) { return home, nil }
	roots := func(uris ...string) []*mcp.Root {
		var out []*mcp.Root
		for _, u := range uris {
			out = append(out, &mcp.Root{URI: u})
		}
		return out
	}

	dir, err := firstUsableRoot(roots("file:///", "file://"+home, "https://x/y", "file://"+file, "file://"+proj), homeFn)
	require.NoError(t, err)
	assert.Equal(t, proj, dir, "the refused roots before it are skipped")

	_, err = firstUsableRoot(roots("file:///", "file://"+home+"/", "file://"+proj+"/missing", "file://"+file, "http://x", "file://other-host/tmp"), homeFn)
	assert.EqualError(t, err, `the client's roots were refused: `+
		`"file:///" (the file system root is never used as the workspace), `+
		`"file://`+home+`/" (the home directory is never used as the workspace), `+
		`"file://`+proj+`/missing" (not an existing directory), `+
		`"file://`+file+`" (not an existing directory), `+
		`"http://x" (not a file: URI), `+
		`"file://other-host/tmp" (a file on another host)`)

	_, err = firstUsableRoot(nil, homeFn)
	assert.EqualError(t, err, "the client offered no roots")
}
