//go:build natsbus

package natsbus_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// programs are the binaries the fleet test runs: dshhost built with
// -tags natsbus, and the example guard and consumer.
var programs struct {
	once                     sync.Once
	err                      error
	dshhost, guard, consumer string
}

// build builds the programs once per test binary.
func build(t testing.TB) (dshhost, guard, consumer string) {
	t.Helper()
	programs.once.Do(func() {
		dir, err := os.MkdirTemp("", "natsbus-fleet-")
		if err != nil {
			programs.err = err
			return
		}
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		for _, b := range []struct{ out, pkg, tags string }{
			{"dshhost", "github.com/dsh-go/dsh/cmd/dshhost", "natsbus"},
			{"guard", "github.com/dsh-go/dsh/examples/natsbus/guard", ""},
			{"consumer", "github.com/dsh-go/dsh/examples/natsbus/consumer", ""},
		} {
			args := []string{"build", "-o", filepath.Join(dir, b.out)}
			if b.tags != "" {
				args = append(args, "-tags", b.tags)
			}
			out, err := exec.Command(goBin, append(args, b.pkg)...).CombinedOutput()
			if err != nil {
				programs.err = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
		programs.dshhost, programs.guard, programs.consumer = filepath.Join(dir, "dshhost"), filepath.Join(dir, "guard"), filepath.Join(dir, "consumer")
	})
	require.NoError(t, programs.err)
	return programs.dshhost, programs.guard, programs.consumer
}

// startGuard runs the example guard with args until the test ends and
// returns its first line, once it says it answers.
func startGuard(t testing.TB, args ...string) string {
	t.Helper()
	_, guardBin, _ := build(t)
	g := exec.Command(guardBin, args...)
	stderr, err := g.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, g.Start())
	t.Cleanup(func() { _ = g.Process.Kill(); _ = g.Wait() })
	sc := bufio.NewScanner(stderr)
	require.True(t, sc.Scan(), "the guard starts")
	first := sc.Text()
	require.Contains(t, first, "guard: answering")
	go func() {
		for sc.Scan() { // the guard's refusals, unread
		}
	}()
	return first
}

// member is one dshhost of the fleet, served over MCP on stdio.
type member struct {
	name   string
	w      string
	cs     *mcp.ClientSession
	stderr *os.File
	calls  []call
}

// call is one tool call a member made and how it ended.
type call struct {
	tool, rel, phase string
	ok               bool
	code, text       string
}

// do calls tool on m with args and records the outcome under phase.
func (m *member) do(t *testing.T, phase, tool, rel string, args map[string]any) call {
	t.Helper()
	res, err := m.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, "%s %s %s", m.name, tool, rel)
	c := call{tool: tool, rel: rel, phase: phase, ok: !res.IsError}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			c.text = tc.Text
		}
	}
	if e, ok := res.Meta["error"].(map[string]any); ok {
		c.code, _ = e["code"].(string)
	}
	m.calls = append(m.calls, c)
	return c
}

func (m *member) write(t *testing.T, phase, rel string) call {
	return m.do(t, phase, "write", rel, map[string]any{"file_path": rel, "content": m.name + " " + rel + "\n"})
}

// TestAFleetSharesOnePolicyAndOneTrail is plugin-protocol.md §5.3: three
// dshhost processes on one NATS server (embedded in this test), one remote
// guard (examples/natsbus/guard) and one audit consumer
// (examples/natsbus/consumer). A remote deny reaches all three servers;
// the NATS server is shut down right after a burst of calls, while their
// audit events are still being published, and restarted on the same port
// and data directory. While it is down the two servers with onFailure
// block refuse their writes and the one with allow makes them; afterwards
// every successful write, edit and read is in the stream exactly once,
// with its actor and target, every refused one is in it never, and the
// consumer printed the same trail. (The go-sdk client is a 2026-07-28
// client that names no conversation: its calls are one conversation,
// which the stdio front end never closes, so no conversation/closed is
// expected; TestTheTrailHoldsEveryEventOnceAsACloudEvent has one.)
func TestAFleetSharesOnePolicyAndOneTrail(t *testing.T) {
	if testing.Short() {
		t.Skip("the fleet test builds and runs six processes; skipped under -short")
	}
	dshhost, _, consumerBin := build(t)
	store := t.TempDir()
	srv := natsServer(t, store, -1)
	port := srv.Addr().(*net.TCPAddr).Port
	url := srv.ClientURL()

	// The guard: writes and edits of protected/** and *.pem are refused.
	assert.Equal(t, "guard: answering dsh.intent.> (queue dsh-guards) with 2 protected patterns",
		startGuard(t, "-server", url, "-protect", "protected/**", "-protect", "**/*.pem"))

	// The members: s1 and s2 block when the guard cannot be asked, s3 allows.
	policies := map[string]string{"s1": "block", "s2": "block", "s3": "allow"}
	var members []*member
	for _, name := range []string{"s1", "s2", "s3"} {
		dir := t.TempDir()
		w, err := filepath.EvalSymlinks(t.TempDir())
		require.NoError(t, err)
		dep := filepath.Join(dir, "dsh.yaml")
		require.NoError(t, os.WriteFile(dep, []byte(fmt.Sprintf(`plugins:
  - name: fslocal
  - name: fssandbox
  - name: fspolicy
  - name: toolfs
  - name: toolsearch
  - name: mcp
  - name: natsbus
    config:
      url: %s
      host: %s
      audit: {stream: DSH_AUDIT}
      guards: [fs/write-intent, fs/edit-intent]
      timeout: 500ms
      onFailure: %s
`, url, name, policies[name])), 0o644))
		stderr, err := os.Create(filepath.Join(dir, "stderr"))
		require.NoError(t, err)
		cmd := exec.Command(dshhost, "serve", "--config", dep, "--workspace", w, "--log-level", "info")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
		cmd.Stderr = stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "fleet", Version: "1"}, nil).
			Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, nil)
		require.NoError(t, err)
		m := &member{name: name, w: w, cs: cs, stderr: stderr}
		members = append(members, m)
		t.Cleanup(func() {
			_ = cs.Close()
			if t.Failed() {
				log, _ := os.ReadFile(stderr.Name())
				t.Logf("%s's log:\n%s", name, log)
			}
		})
	}

	// The consumer follows the trail (the first member created the stream).
	consumer := exec.Command(consumerBin, "-server", url, "-follow")
	out, err := consumer.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, consumer.Start())
	t.Cleanup(func() { _ = consumer.Process.Kill(); _ = consumer.Wait() })
	var printedMu sync.Mutex
	var printed []string
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			printedMu.Lock()
			printed = append(printed, sc.Text())
			printedMu.Unlock()
		}
	}()

	each := func(fn func(m *member)) {
		var wg sync.WaitGroup
		for _, m := range members {
			wg.Go(func() { fn(m) })
		}
		wg.Wait()
	}

	// NATS up: the guard lets ordinary changes through and refuses the
	// protected ones on every server.
	each(func(m *member) {
		require.NoError(t, os.WriteFile(filepath.Join(m.w, "notes.txt"), []byte("alpha\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(m.w, "key.pem"), []byte("KEY\n"), 0o644))
		require.True(t, m.do(t, "up", "read", "notes.txt", map[string]any{"file_path": "notes.txt"}).ok)
		c := m.do(t, "up", "edit", "notes.txt", map[string]any{"file_path": "notes.txt", "old_string": "alpha", "new_string": "beta"})
		require.True(t, c.ok, c.text)
		require.True(t, m.do(t, "up", "read", "key.pem", map[string]any{"file_path": "key.pem"}).ok)
		c = m.do(t, "up", "edit", "key.pem", map[string]any{"file_path": "key.pem", "old_string": "KEY", "new_string": "STOLEN"})
		assert.Equal(t, "CENTRAL_POLICY", c.code, "%s: %s", m.name, c.text)
		assert.Equal(t, fmt.Sprintf("Error: cannot edit %q: key.pem is protected by the central policy (**/*.pem)", filepath.Join(m.w, "key.pem")), c.text)
		c = m.write(t, "up", "protected/plan.txt")
		assert.Equal(t, "CENTRAL_POLICY", c.code, "%s: %s", m.name, c.text)
		assert.NoFileExists(t, filepath.Join(m.w, "protected", "plan.txt"))
		for i := range 40 { // a burst: its events are still being published when NATS goes
			require.True(t, m.write(t, "up", fmt.Sprintf("burst/%02d.txt", i)).ok)
		}
	})

	// NATS down.
	srv.Shutdown()
	srv.WaitForShutdown()
	each(func(m *member) {
		for i := range 5 {
			c := m.write(t, "down", fmt.Sprintf("down/%d.txt", i))
			if policies[m.name] == "allow" {
				assert.True(t, c.ok, "%s (allow): %s", m.name, c.text)
			} else {
				assert.Equal(t, "PLUGIN_UNAVAILABLE", c.code, "%s (block): %s", m.name, c.text)
				assert.Contains(t, c.text, `Error: plugin "natsbus" is unavailable: `)
				assert.NoFileExists(t, filepath.Join(m.w, "down", fmt.Sprintf("%d.txt", i)), "block writes nothing")
			}
		}
		require.True(t, m.do(t, "down", "read", "notes.txt", map[string]any{"file_path": "notes.txt"}).ok, "reads need no guard")
	})

	// NATS back, on the same port and data directory.
	srv = natsServer(t, store, port)
	require.Eventually(t, func() bool { return srv.NumClients() >= 5 }, 30*time.Second, 20*time.Millisecond,
		"the guard, the consumer and the three servers reconnect")
	each(func(m *member) {
		probes := 0
		require.Eventually(t, func() bool {
			probes++
			return m.write(t, "probe", fmt.Sprintf("probe/%d.txt", probes)).ok
		}, 30*time.Second, 50*time.Millisecond, "%s asks the guard again", m.name)
		for i := range 10 {
			require.True(t, m.write(t, "after", fmt.Sprintf("after/%d.txt", i)).ok)
		}
		c := m.write(t, "after", "protected/again.txt")
		assert.Equal(t, "CENTRAL_POLICY", c.code, "%s: %s", m.name, c.text)
	})

	// The members stop (each drains its queue), then the trail is complete.
	for _, m := range members {
		require.NoError(t, m.cs.Close())
	}
	js := client(t, srv.ClientURL())
	want := 0
	for _, m := range members {
		for _, c := range m.calls {
			if c.ok {
				want++
			}
		}
	}
	stored := trail(t, js, "DSH_AUDIT", want)
	require.Equal(t, want, len(stored), "the stream holds exactly the successful calls' events")

	ids := map[string]bool{}
	count := map[string]int{} // host tool rel -> events
	for _, ev := range stored {
		assert.False(t, ids[ev.ID], "event %s stored twice", ev.ID)
		ids[ev.ID] = true
		host := strings.Split(ev.NATSSubject, ".")[2]
		require.Equal(t, "dev.dsh.fs.observed", ev.Type, "a stdio client of 2026-07-28 is one conversation that never closes")
		assert.Equal(t, "stdio", ev.Data.Actor.Principal)
		assert.True(t, strings.HasPrefix(*ev.Data.Actor.Conversation, "stdio"), *ev.Data.Actor.Conversation)
		count[host+" "+ev.Data.Actor.Tool+" "+ev.Subject]++
	}
	for _, m := range members {
		calls := map[string]int{}
		for _, c := range m.calls {
			if c.ok {
				calls[m.name+" "+c.tool+" "+c.rel]++
			} else {
				assert.Zero(t, count[m.name+" "+c.tool+" "+c.rel], "%s's refused %s of %s is not in the trail", m.name, c.tool, c.rel)
			}
		}
		for key, n := range calls {
			assert.Equal(t, n, count[key], "%s: each successful call once", key)
		}
	}
	for _, m := range members {
		log, err := os.ReadFile(m.stderr.Name())
		require.NoError(t, err)
		assert.Contains(t, string(log), "audit events wait: publishing failed", "%s queued events while NATS was down", m.name)
		assert.Contains(t, string(log), "audit publishing resumed", m.name)
		assert.NotContains(t, string(log), "lost", m.name)
		assert.NotContains(t, string(log), "dropped", m.name)
	}
	var downOK, downRefused int
	for _, m := range members {
		for _, c := range m.calls {
			if c.phase == "down" && c.tool == "write" {
				if c.ok {
					downOK++
				} else {
					downRefused++
				}
			}
		}
	}
	assert.Equal(t, []int{5, 10}, []int{downOK, downRefused}, "while NATS was down: s3 allowed 5 writes, s1 and s2 refused 10")

	require.Eventually(t, func() bool {
		printedMu.Lock()
		defer printedMu.Unlock()
		return len(printed) >= want
	}, 30*time.Second, 20*time.Millisecond, "the consumer prints the whole trail")
	printedMu.Lock()
	defer printedMu.Unlock()
	require.Len(t, printed, want)
	for i, line := range printed {
		var ev struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(line), &ev))
		assert.Equal(t, stored[i].ID, ev.ID, "the consumer printed the stream, in order, each event once")
	}
}
