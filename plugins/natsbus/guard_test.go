//go:build natsbus

package natsbus_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
)

// A remote guard sees each intent's §1 params (target with rel, actor,
// the call's arguments) and the asking host; its deny is the call's error
// and nothing is written; its next lets the policy decide.
func TestARemoteGuardDecidesWritesAndEdits(t *testing.T) {
	srv := natsServer(t, t.TempDir(), -1)
	nc := client(t, srv.ClientURL())
	var mu sync.Mutex
	var seen []*nats.Msg
	var intents []wire.Intent
	answer(t, nc, func(m *nats.Msg, in wire.Intent) any {
		mu.Lock()
		seen, intents = append(seen, m), append(intents, in)
		mu.Unlock()
		if in.Target.Rel != nil && strings.HasPrefix(*in.Target.Rel, "secrets/") {
			return wire.Decision{Decision: "deny", Message: "secrets are central", Code: "CENTRAL"}
		}
		return wire.Decision{Decision: "next"}
	})
	s := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, s, map[string]any{"url": srv.ClientURL(), "host": "build.7",
		"guards": []any{"fs/write-intent", "fs/edit-intent"}})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	assert.Equal(t, wire.State{Process: "connected to " + srv.ClientURL()}, stateOf(s))

	conv := s.Conversation("test/c/1")
	res := write(s, conv, "a.txt", "alpha\n")
	require.False(t, res.IsError, res.Text())
	res = write(s, conv, "secrets/key.txt", "x")
	assert.Equal(t, "Error: secrets are central", res.Text())
	assert.Equal(t, "CENTRAL", res.Code())
	assert.NoFileExists(t, filepath.Join(s.W, "secrets", "key.txt"))
	require.False(t, read(s, conv, "a.txt").IsError)
	res = edit(s, conv, "a.txt", "alpha", "beta")
	require.False(t, res.IsError, res.Text())
	// An edit of an unread file passes the guard; the policy still refuses.
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "b.txt"), []byte("b\n"), 0o644))
	res = edit(s, conv, "b.txt", "b", "c")
	assert.True(t, res.IsError)
	assert.Equal(t, "FS_NOT_OBSERVED", res.Code(), res.Text())

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 4)
	var subjects []string
	for _, m := range seen {
		subjects = append(subjects, m.Subject)
		assert.Equal(t, "build_7", m.Header.Get("Dsh-Host"), "the host, its dot made _")
	}
	assert.Equal(t, []string{"dsh.intent.fs.write-intent", "dsh.intent.fs.write-intent", "dsh.intent.fs.edit-intent", "dsh.intent.fs.edit-intent"}, subjects)
	in := intents[2]
	assert.Equal(t, "a.txt", *in.Target.Rel)
	assert.Equal(t, filepath.Join(s.W, "a.txt"), *in.Target.Key)
	assert.Equal(t, "edit", in.Actor.Tool)
	assert.Equal(t, "test/c/1", *in.Actor.Conversation)
	assert.NotEmpty(t, in.Actor.Call)
	assert.JSONEq(t, `{"file_path":"a.txt","old_string":"alpha","new_string":"beta"}`, string(in.Arguments))
}

// Every §2 failure of a remote guard, under block and under allow: no
// responders, a guard that hangs, answers that are not decisions, a NATS
// server that is gone. Block fails the call with PLUGIN_UNAVAILABLE and
// writes nothing; allow writes. Either way the call returns within the
// timeout (with room for a loaded machine).
func TestEveryRemoteFailureBlocksOrAllows(t *testing.T) {
	const timeout = 300 * time.Millisecond
	cases := []struct {
		name  string
		guard func(*nats.Msg) // nil: no responder
		cause string
	}{
		{"noresponders", nil, "no responders on dsh.intent.fs.write-intent"},
		{"hang", func(*nats.Msg) {}, "no answer within 300ms"},
		{"garbage", func(m *nats.Msg) { _ = m.Respond([]byte("this is not JSON")) }, `broken answer: not a decision object: "this is not JSON"`},
		{"wrongshape", func(m *nats.Msg) { _ = m.Respond([]byte(`{"decision":"maybe"}`)) }, `broken answer: unknown decision "maybe"`},
		{"serverdown", nil, "not connected to NATS"},
	}
	for _, c := range cases {
		for _, policy := range []wire.OnFailure{wire.Block, wire.Allow} {
			t.Run(c.name+"/"+string(policy), func(t *testing.T) {
				t.Parallel()
				srv := natsServer(t, t.TempDir(), -1)
				if c.guard != nil {
					nc := client(t, srv.ClientURL())
					_, err := nc.Subscribe("dsh.intent.>", c.guard)
					require.NoError(t, err)
					require.NoError(t, nc.Flush())
				}
				s := stacktest.New(t, stacktest.Options{})
				inst := mountBus(t, s, map[string]any{"url": srv.ClientURL(), "guards": []any{"fs/write-intent"},
					"timeout": timeout.String(), "onFailure": string(policy)})
				require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
				if c.name == "serverdown" {
					srv.Shutdown()
					require.Eventually(t, func() bool { return strings.HasPrefix(stateOf(s).Process, "reconnecting") },
						5*time.Second, 5*time.Millisecond)
				}
				start := time.Now()
				res := write(s, s.Conversation("c"), "a.txt", "x")
				elapsed := time.Since(start)
				t.Logf("%s/%s: %s in %s", c.name, policy, res.Text(), elapsed)
				assert.Less(t, elapsed, timeout+time.Second, "bounded by the timeout")
				if policy == wire.Allow {
					assert.False(t, res.IsError, res.Text())
					assert.FileExists(t, filepath.Join(s.W, "a.txt"))
					return
				}
				assert.True(t, strings.HasPrefix(res.Text(), `Error: plugin "natsbus" is unavailable: `+c.cause), res.Text())
				assert.Equal(t, "PLUGIN_UNAVAILABLE", res.Code())
				assert.NoFileExists(t, filepath.Join(s.W, "a.txt"), "block writes nothing")
				if c.name == "noresponders" || c.name == "serverdown" {
					assert.Less(t, elapsed, timeout, "no responders and no connection fail at once, without waiting for the timeout")
				}
			})
		}
	}
}

// A write too large for the server's max_payload still reaches the guard:
// with its arguments left out (null, argumentsOmitted), as a write past
// maxArgumentBytes is.
func TestAHugeWriteIsAskedAboutWithoutItsArguments(t *testing.T) {
	srv := natsServer(t, t.TempDir(), -1)
	nc := client(t, srv.ClientURL())
	var mu sync.Mutex
	var got []wire.Intent
	answer(t, nc, func(_ *nats.Msg, in wire.Intent) any {
		mu.Lock()
		got = append(got, in)
		mu.Unlock()
		return wire.Decision{Decision: "next"}
	})
	s := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, s, map[string]any{"url": srv.ClientURL(), "guards": []any{"fs/write-intent"},
		"maxArgumentBytes": 4 << 20})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	big := strings.Repeat("x", 2<<20) // past the server's 1 MiB max_payload, under maxArgumentBytes
	res := write(s, s.Conversation("c"), "big.txt", big)
	require.False(t, res.IsError, res.Text())
	small := write(s, s.Conversation("c"), "small.txt", "x")
	require.False(t, small.IsError, small.Text())
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 2)
	assert.True(t, got[0].ArgumentsOmitted)
	assert.Equal(t, "null", string(got[0].Arguments))
	assert.Equal(t, "big.txt", *got[0].Target.Rel)
	assert.False(t, got[1].ArgumentsOmitted)
	assert.JSONEq(t, `{"file_path":"small.txt","content":"x"}`, string(got[1].Arguments))
}

// A guard that answers after the timeout: the call it was asked for has
// failed per onFailure, and its late answer is never taken for the next
// call's, which gets its own.
func TestALateAnswerIsNotTakenForTheNext(t *testing.T) {
	srv := natsServer(t, t.TempDir(), -1)
	nc := client(t, srv.ClientURL())
	held := make(chan *nats.Msg, 1)
	var n atomic.Int32
	_, err := nc.Subscribe("dsh.intent.>", func(m *nats.Msg) {
		if n.Add(1) == 1 {
			held <- m // answered only once the call has given up
			return
		}
		raw, _ := json.Marshal(wire.Decision{Decision: wire.Deny, Message: "the second answer", Code: "SECOND"})
		_ = m.Respond(raw)
	})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	s := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, s, map[string]any{"url": srv.ClientURL(), "guards": []any{"fs/write-intent"}, "timeout": "200ms"})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())

	res := write(s, s.Conversation("c"), "a.txt", "x")
	assert.Equal(t, `Error: plugin "natsbus" is unavailable: no answer within 200ms`, res.Text())
	raw, _ := json.Marshal(wire.Decision{Decision: wire.Next})
	require.NoError(t, (<-held).Respond(raw), "the late answer: next")
	require.NoError(t, nc.Flush())
	res = write(s, s.Conversation("c"), "a.txt", "x")
	assert.Equal(t, "Error: the second answer", res.Text())
	assert.Equal(t, "SECOND", res.Code())
	assert.NoFileExists(t, filepath.Join(s.W, "a.txt"))
}

// A guard that answers 10 MB (a server whose max_payload lets it): 10 MB
// that are not JSON are a broken answer, quoted by their first bytes;
// 10 MB of unknown members beside a decision are that decision.
func TestATenMegabyteAnswer(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true, NoLog: true, MaxPayload: 16 << 20})
	require.NoError(t, err)
	srv.Start()
	t.Cleanup(srv.Shutdown)
	require.True(t, srv.ReadyForConnections(10*time.Second))
	nc := client(t, srv.ClientURL())
	junk := strings.Repeat("x", 10<<20)
	_, err = nc.Subscribe("dsh.intent.>", func(m *nats.Msg) {
		var in wire.Intent
		_ = json.Unmarshal(m.Data, &in)
		if *in.Target.Rel == "garbage.txt" {
			_ = m.Respond([]byte(junk))
			return
		}
		_ = m.Respond([]byte(`{"decision":"next","padding":"` + junk + `"}`))
	})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	for _, policy := range []wire.OnFailure{wire.Block, wire.Allow} {
		s := stacktest.New(t, stacktest.Options{})
		inst := mountBus(t, s, map[string]any{"url": srv.ClientURL(), "guards": []any{"fs/write-intent"}, "onFailure": string(policy)})
		require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
		res := write(s, s.Conversation("c"), "garbage.txt", "x")
		if policy == wire.Block {
			assert.Equal(t, `Error: plugin "natsbus" is unavailable: broken answer: not a decision object: "`+junk[:64]+`"...`, res.Text())
			assert.NoFileExists(t, filepath.Join(s.W, "garbage.txt"))
		} else {
			assert.False(t, res.IsError, res.Text())
		}
		res = write(s, s.Conversation("c"), "padded.txt", "x")
		assert.False(t, res.IsError, res.Text())
	}
}
