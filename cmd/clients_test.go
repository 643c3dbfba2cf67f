package cmd_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/npmtest"
)

// mcpClients returns the directory holding Node 22 and the official
// TypeScript MCP clients (@modelcontextprotocol/sdk 1.x and
// @modelcontextprotocol/client 2.x), and the node binary (npmtest).
func mcpClients(t *testing.T) (dir, node string) {
	t.Helper()
	return npmtest.Dir(t), npmtest.Node(t)
}

// cell is what one client of the matrix did (testdata/clients/matrix.mjs).
type cell struct {
	Connected bool    `json:"connected"`
	Protocol  *string `json:"protocol"`
	Error     string  `json:"error"`
	Read      struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"read"`
	Edit, EditUnread, OverwriteUnread struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	}
	Image struct {
		IsError  bool     `json:"isError"`
		Types    []string `json:"types"`
		MIMEType string   `json:"mimeType"`
		Bytes    int      `json:"bytes"`
	} `json:"image"`
	After       string `json:"after"`
	UnreadAfter string `json:"unreadAfter"`
}

// TestTheOfficialClientsMatrix: conversations.md §5.1. The TypeScript SDK
// v1 and v2 (legacy, auto and pinned to 2026-07-28) over stdio and HTTP:
// 8 of 8 connect, read → edit of one file succeeds, an edit and an
// overwrite of a file the client never read are refused, and a PNG read
// arrives as image content.
func TestTheOfficialClientsMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: starts Node clients")
	}
	dir, node := mcpClients(t)
	script, err := filepath.Abs("testdata/clients/matrix.mjs")
	require.NoError(t, err)
	w := workspace(t)
	srv, url, _ := startHTTP(t, []string{"DSH_MCP_TOKEN=matrix-token"}, "--workspace", w)
	t.Cleanup(func() { _ = srv.Process.Signal(syscall.SIGTERM); _ = srv.Wait() })
	for _, c := range []struct{ sdk, mode, protocol string }{
		{"v1", "legacy", ""}, {"v2", "legacy", "2025-11-25"}, {"v2", "auto", "2026-07-28"}, {"v2", "pin", "2026-07-28"},
	} {
		for _, transport := range []string{"stdio", "http"} {
			name := c.sdk + "-" + c.mode + "-" + transport
			t.Run(name, func(t *testing.T) {
				target := binary
				if transport == "http" {
					target = url
				}
				run := exec.CommandContext(t.Context(), node, script, c.sdk, c.mode, transport, target, w)
				run.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR"), "MCP_CLIENTS_DIR=" + dir, "DSH_TEST_TOKEN=matrix-token"}
				out, err := run.Output()
				require.NoError(t, err, "%s", out)
				var got cell
				require.NoError(t, json.Unmarshal(out, &got), "%s", out)
				require.True(t, got.Connected, got.Error)
				require.Empty(t, got.Error)
				if c.protocol != "" && got.Protocol != nil {
					assert.Equal(t, c.protocol, *got.Protocol)
				}
				file := filepath.Join(w, name+".txt")
				unread := filepath.Join(w, name+"-unread.txt")
				assert.False(t, got.Read.IsError, got.Read.Text)
				assert.False(t, got.Edit.IsError, got.Edit.Text)
				assert.Equal(t, "The file "+file+" has been updated successfully.", got.Edit.Text)
				assert.Equal(t, "hello there\n", got.After)
				assert.True(t, got.EditUnread.IsError)
				assert.Equal(t, `Error: edit requires reading "`+unread+`" first — read the file, then retry`, got.EditUnread.Text)
				assert.True(t, got.OverwriteUnread.IsError)
				assert.True(t, strings.HasPrefix(got.OverwriteUnread.Text, `Error: cannot overwrite existing "`+unread+`"`), got.OverwriteUnread.Text)
				assert.Equal(t, "untouched\n", got.UnreadAfter)
				assert.False(t, got.Image.IsError)
				assert.Equal(t, []string{"image"}, got.Image.Types, "a PNG read arrives as image content")
				assert.Equal(t, "image/png", got.Image.MIMEType)
				assert.Equal(t, 70, got.Image.Bytes)
			})
		}
	}
}
