package cmd

import (
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUsableRoot(t *testing.T) {
	dir := t.TempDir()
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	file := dir + "/f"
	require.NoError(t, os.WriteFile(file, nil, 0o644))

	got, err := usableRoot([]*mcp.Root{{URI: "file:///"}, {URI: "https://example.com/x"}, {URI: "file://" + dir}})
	require.NoError(t, err)
	assert.Equal(t, dir, got, "the first usable root, after refused ones")

	_, err = usableRoot(nil)
	assert.Equal(t, errNoRoots, err)

	_, err = usableRoot([]*mcp.Root{{URI: "file:///"}, {URI: "file://" + home}, {URI: "file://" + file}, {URI: "file://" + dir + "/missing"}, {URI: "ftp://x/y"}})
	assert.EqualError(t, err, `the client's roots were refused: "file:///" (the file system root is never used as the workspace), `+
		`"file://`+home+`" (the home directory is never used as the workspace), `+
		`"file://`+file+`" (not an existing directory), "file://`+dir+`/missing" (not an existing directory), "ftp://x/y" (not a file: URI)`)
}
