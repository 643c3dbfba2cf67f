package cmd_test

import (
	"context"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/cmd"
)

// TestAdoptingARootSendsNoToolListChanged: a stdio client whose first
// root becomes the workspace (fslocal and the tools restart on it) sees
// the same tool set and no notifications/tools/list_changed
// (conversations.md §4.1). The SDK debounces that notification for 10 ms;
// the bubble's clock runs a full second past the adoption.
func TestAdoptingARootSendsNoToolListChanged(t *testing.T) {
	w := workspace(t)
	writeFile(t, filepath.Join(w, "a.txt"), "from the root\n")
	// The runtime's signal loop starts here, outside the bubble.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGUSR2)
	synctest.Test(t, func(t *testing.T) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan int, 1)
		go func() {
			done <- cmd.Run(context.Background(), cmd.Env{Stdin: inR, Stdout: outW, Stderr: io.Discard, Dir: "/", Environ: []string{}}, []string{"serve"})
			outW.Close()
		}()
		var changed atomic.Int32
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.Add(1) },
		})
		client.AddRoots(&mcp.Root{URI: "file://" + w, Name: "project"})
		cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
		require.NoError(t, err)
		res := callTool(t, cs, "read", map[string]any{"file_path": "a.txt"})
		assert.Contains(t, text(t, res), "1: from the root")
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Zero(t, changed.Load(), "no tools/list_changed")
		tl, err := cs.ListTools(t.Context(), nil)
		require.NoError(t, err)
		assert.Len(t, tl.Tools, 12)
		require.NoError(t, cs.Close())
		assert.Equal(t, 0, <-done)
	})
}
