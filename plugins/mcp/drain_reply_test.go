package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/frontend"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// A call cancelled at the drain timeout is still answered (with its
// aborted result) before the session closes: a request read before
// shutdown gets a reply (docs/mcp.md; a trial saw none).
func TestACallCancelledAtTheDrainTimeoutIsAnswered(t *testing.T) {
	st := stacktest.New(t, stacktest.Options{})
	require.NoError(t, os.WriteFile(filepath.Join(st.W, "slow.txt"), []byte("slow\n"), 0o644))
	started := make(chan struct{})
	var once sync.Once
	_, err := events.FSObserved.On(st.Host.Root(), func(ctx context.Context, o events.Observation) error {
		if strings.HasSuffix(o.Target.DisplayPath, "slow.txt") {
			once.Do(func() { close(started) })
			<-ctx.Done()
		}
		return nil
	})
	require.NoError(t, err)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	cfg := mcpserver.Plugin.DefaultConfig().(mcpserver.Config)
	cfg.Stdin, cfg.Stdout, cfg.Stderr, cfg.Workspace = inR, outW, io.Discard, fixedDir(st.W)
	cfg.DrainTimeout = 200 * time.Millisecond
	inst, err := st.Host.Plugin(t.Context(), mcpserver.Plugin, cfg)
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))
	fe, ok := frontend.Key.Get(st.Host.Root())
	srv, _ := fe.(*mcpserver.Server)
	require.True(t, ok)

	lines := make(chan string, 16)
	go func() {
		r := bufio.NewReader(outR)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"file_path":"slow.txt"}}}`,
	} {
		_, err := io.WriteString(inW, l+"\n")
		require.NoError(t, err)
	}
	<-started
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	var reply map[string]any
	deadline := time.After(10 * time.Second)
	for reply == nil {
		select {
		case l, open := <-lines:
			require.True(t, open, "the output ended without an answer to id 2")
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m))
			if m["id"] == 2.0 {
				reply = m
			}
		case <-deadline:
			t.Fatal("no answer to id 2")
		}
	}
	result, _ := reply["result"].(map[string]any)
	require.NotNil(t, result, "%v", reply)
	assert.Equal(t, true, result["isError"])
	assert.ErrorIs(t, <-shut, mcpserver.ErrDrainIncomplete)
}
