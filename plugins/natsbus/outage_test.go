//go:build natsbus

package natsbus_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
)

// outcome is one write of TestNATSStoppedMidBurst and how it ended.
type outcome struct {
	rel   string
	phase int32 // 0 before the stop, 1 while NATS is down, 2 after the restart
	ok    bool
	code  string
}

// NATS stopped while four writers are in the middle of a burst (guarded
// writes, their events being published) and restarted on the same port
// and data directory: every write that succeeded, before, during or after
// the outage, is in the stream exactly once; every write that failed is
// in it never, failed with PLUGIN_UNAVAILABLE and wrote nothing (block),
// and under allow none failed.
func TestNATSStoppedMidBurst(t *testing.T) {
	for _, policy := range []wire.OnFailure{wire.Block, wire.Allow} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			store := t.TempDir()
			srv := natsServer(t, store, -1)
			port := srv.Addr().(*net.TCPAddr).Port
			url := srv.ClientURL()
			gc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
			require.NoError(t, err)
			t.Cleanup(gc.Close)
			answer(t, gc, func(*nats.Msg, wire.Intent) any { return wire.Decision{Decision: wire.Next} })

			s := stacktest.New(t, stacktest.Options{})
			inst := mountBus(t, s, map[string]any{"url": url, "audit": map[string]any{}, "guards": []any{"fs/write-intent"},
				"timeout": "500ms", "onFailure": string(policy)})
			require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())

			var phase atomic.Int32
			var mu sync.Mutex
			var outcomes []outcome
			count := func(ph int32, ok bool) int {
				mu.Lock()
				defer mu.Unlock()
				n := 0
				for _, o := range outcomes {
					if o.phase == ph && o.ok == ok {
						n++
					}
				}
				return n
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					conv := s.Conversation(fmt.Sprintf("writer/%d", w))
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						ph := phase.Load()
						rel := fmt.Sprintf("w%d/%05d.txt", w, i)
						res := write(s, conv, rel, rel)
						mu.Lock()
						outcomes = append(outcomes, outcome{rel: rel, phase: ph, ok: !res.IsError, code: res.Code()})
						mu.Unlock()
						if ph == 1 && policy == wire.Block {
							time.Sleep(time.Millisecond) // refusals are instant: pace them
						}
					}
				})
			}

			require.Eventually(t, func() bool { return count(0, true) >= 40 }, 30*time.Second, time.Millisecond)
			srv.Shutdown() // mid-burst: writes and publishes in flight
			phase.Store(1)
			t.Logf("at the stop: %s", stateOf(s).Process)
			require.Eventually(t, func() bool { return count(1, true)+count(1, false) >= 40 }, 30*time.Second, time.Millisecond)
			srv = natsServer(t, store, port)
			require.Eventually(t, func() bool { return strings.HasPrefix(stateOf(s).Process, "connected") && gc.IsConnected() },
				30*time.Second, time.Millisecond, "natsbus and the guard reconnect")
			phase.Store(2)
			require.Eventually(t, func() bool { return count(2, true) >= 40 }, 30*time.Second, time.Millisecond,
				"the writes go through again once NATS is back")
			close(stop)
			wg.Wait()
			require.NoError(t, inst.Dispose(t.Context()), "the entry drains its queue")

			want := 0 // the writers are done: outcomes is this goroutine's now
			for _, o := range outcomes {
				if o.ok {
					want++
					continue
				}
				require.Equal(t, wire.Block, policy, "allow refuses nothing: %s in phase %d: %s", o.rel, o.phase, o.code)
				assert.Equal(t, "PLUGIN_UNAVAILABLE", o.code, o.rel)
				assert.NoFileExists(t, filepath.Join(s.W, o.rel), "block writes nothing")
			}
			if policy == wire.Block {
				assert.Positive(t, count(1, false), "block refused writes while NATS was down")
			} else {
				assert.Positive(t, count(1, true), "allow made writes while NATS was down")
			}
			stored := trail(t, client(t, srv.ClientURL()), "DSH_AUDIT", want)
			require.Len(t, stored, want, "the stream holds exactly the successful writes' events")
			in := map[string]int{}
			for _, ev := range stored {
				in[ev.Subject]++
			}
			for _, o := range outcomes {
				if o.ok {
					assert.Equal(t, 1, in[o.rel], "%s (phase %d) once", o.rel, o.phase)
				} else {
					assert.Zero(t, in[o.rel], "%s was refused", o.rel)
				}
			}
		})
	}
}

// Two dshhost processes whose embedded servers are given one data
// directory: while the first serves, the second fails to start (exit 2,
// saying which process holds it) under block, and runs without natsbus
// under allow; once the first has stopped, the second runs on the
// directory, and the trail there holds both servers' events and nothing
// of the inert one's.
func TestTwoDshhostOnOneDataDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs dshhost; skipped under -short")
	}
	dshhost, _, _ := build(t)
	data := filepath.Join(t.TempDir(), "nats")
	deployment := func(onFailure string) string {
		dep := filepath.Join(t.TempDir(), "dsh.yaml")
		require.NoError(t, os.WriteFile(dep, []byte(fmt.Sprintf(`plugins:
  - name: fslocal
  - name: fspolicy
  - name: toolfs
  - name: mcp
  - name: natsbus
    config:
      embedded: true
      dataDir: %s
      audit: {}
      onFailure: %s
`, data, onFailure)), 0o644))
		return dep
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	callWrite := func(dep, w, rel string) (int, string) {
		cmd := exec.Command(dshhost, "call", "--config", dep, "--workspace", w, "write",
			fmt.Sprintf(`{"file_path":%q,"content":"x"}`, rel))
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), stderr.String()
		}
		require.NoError(t, err)
		return 0, stderr.String()
	}

	first := t.TempDir()
	cmd := exec.Command(dshhost, "serve", "--config", deployment("block"), "--workspace", first)
	cmd.Env = env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "two", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"file_path": "first.txt", "content": "x"}})
	require.NoError(t, err)
	require.False(t, res.IsError)

	second := t.TempDir()
	code, stderr := callWrite(deployment("block"), second, "blocked.txt")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "the data directory "+data+" is in use by the embedded NATS server of process "+strconv.Itoa(cmd.Process.Pid))
	assert.NoFileExists(t, filepath.Join(second, "blocked.txt"))

	code, stderr = callWrite(deployment("allow"), second, "inert.txt")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "natsbus is not running")
	assert.FileExists(t, filepath.Join(second, "inert.txt"))

	require.NoError(t, cs.Close(), "the first stops and lets the directory go")
	code, stderr = callWrite(deployment("block"), second, "after.txt")
	require.Equal(t, 0, code, stderr)

	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: data, NoSigs: true, NoLog: true})
	require.NoError(t, err)
	srv.Start()
	t.Cleanup(srv.Shutdown)
	require.True(t, srv.ReadyForConnections(10*time.Second))
	var rels []string
	for _, ev := range trail(t, client(t, srv.ClientURL()), "DSH_AUDIT", 2) {
		rels = append(rels, ev.Subject)
		assert.True(t, strings.HasPrefix(ev.Source, "dshhost://"), ev.Source)
	}
	assert.Equal(t, []string{"first.txt", "after.txt"}, rels)
}

// A dshhost with an embedded server killed (SIGKILL) in the middle of a
// burst: the next dshhost on the data directory starts (the lock went
// with the process, JetStream recovers its files) and the trail holds
// each of its events once and each of the killed one's at most once, of
// writes that succeeded.
func TestAKilledEmbeddedServerLeavesAUsableTrail(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs dshhost; skipped under -short")
	}
	dshhost, _, _ := build(t)
	data := filepath.Join(t.TempDir(), "nats")
	dep := filepath.Join(t.TempDir(), "dsh.yaml")
	require.NoError(t, os.WriteFile(dep, []byte(`plugins:
  - name: fslocal
  - name: fspolicy
  - name: toolfs
  - name: mcp
  - name: natsbus
    config:
      embedded: true
      dataDir: `+data+`
      audit: {}
`), 0o644))
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	w := t.TempDir()
	cmd := exec.Command(dshhost, "serve", "--config", dep, "--workspace", w)
	cmd.Env = env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "kill", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	var mu sync.Mutex
	written := map[string]bool{}
	var inflight string // the write the kill cut: made or not, its answer lost
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			rel := fmt.Sprintf("burst/%04d.txt", i)
			mu.Lock()
			inflight = rel
			mu.Unlock()
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"file_path": rel, "content": rel}})
			if err != nil {
				return // killed
			}
			if !res.IsError {
				mu.Lock()
				written[rel] = true
				mu.Unlock()
			}
		}
	}()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(written) >= 30 }, 30*time.Second, time.Millisecond)
	require.NoError(t, cmd.Process.Kill())
	<-done

	after := exec.Command(dshhost, "call", "--config", dep, "--workspace", w, "write", `{"file_path":"after.txt","content":"x"}`)
	after.Env = env
	out, err := after.CombinedOutput()
	require.NoError(t, err, "%s", out)

	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: data, NoSigs: true, NoLog: true})
	require.NoError(t, err)
	srv.Start()
	t.Cleanup(srv.Shutdown)
	require.True(t, srv.ReadyForConnections(10*time.Second))
	evs := trail(t, client(t, srv.ClientURL()), "DSH_AUDIT", 1)
	seen := map[string]int{}
	for _, ev := range evs {
		seen[ev.Subject]++
	}
	mu.Lock()
	defer mu.Unlock()
	for rel, n := range seen {
		assert.Equal(t, 1, n, "%s once", rel)
		assert.True(t, rel == "after.txt" || written[rel] || rel == inflight, "%s is a write that succeeded", rel)
	}
	assert.Equal(t, 1, seen["after.txt"], "the next dshhost's write is in the trail")
	t.Logf("%d writes succeeded before the kill; %d of their events are in the trail", len(written), len(evs)-1)
}
