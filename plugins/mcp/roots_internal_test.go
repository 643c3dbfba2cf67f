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
	assert.EqualError(t, err, `root "file:///" was refused: the filesystem root / is never used as the workspace; `+
		`root "file://`+home+`/" was refused: the home directory is never used as the workspace; `+
		`root "file://`+proj+`/missing" was refused: it cannot be opened: no such file or directory; `+
		`root "file://`+file+`" was refused: it is not a directory; `+
		`root "http://x" was refused: it is not a file: URI; `+
		`root "file://other-host/tmp" was refused: it names another host (other-host)`)

	_, err = firstUsableRoot(nil, homeFn)
	assert.EqualError(t, err, "the client has no roots")
}
