package cmd_test

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onePixelPNG is a valid 1×1 PNG (70 bytes).
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// TestAnImageReadArrivesAsImageContent: through `dshhost serve` over stdio
// and the go-sdk client, a read of a PNG (named .dat: known by its
// content) is one MCP image content block with the file's bytes, its
// structuredContent the summary of an image; `dshhost call` prints the one
// line `[image/png, 70 bytes]`.
func TestAnImageReadArrivesAsImageContent(t *testing.T) {
	w := workspace(t)
	png, err := base64.StdEncoding.DecodeString(onePixelPNG)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(w, "pixel.dat"), png, 0o644))

	cmd := exec.Command(binary, "serve", "--workspace", w)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Minute}, nil)
	require.NoError(t, err)
	res := callTool(t, cs, "read", map[string]any{"file_path": "pixel.dat"})
	require.False(t, res.IsError)
	require.Len(t, res.Content, 1)
	img, ok := res.Content[0].(*mcp.ImageContent)
	require.True(t, ok, "image content, not %T", res.Content[0])
	assert.Equal(t, "image/png", img.MIMEType)
	assert.Equal(t, png, img.Data)
	assert.Equal(t, map[string]any{"path": w + "/pixel.dat", "offset": 1.0, "endLine": 0.0, "totalLines": 0.0, "capped": false,
		"mimeType": "image/png", "bytes": 70.0}, res.StructuredContent)
	require.NoError(t, cs.Close())

	out := dshhost(t, w, "", nil, "call", "read", `{"file_path":"pixel.dat"}`)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, "[image/png, 70 bytes]\n", out.stdout)
}
