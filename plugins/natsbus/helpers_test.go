//go:build natsbus

package natsbus_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/natsbus"
	"github.com/dsh-go/dsh/plugins/tools"
)

// natsServer starts a nats-server with JetStream on dir, listening on
// 127.0.0.1:port (-1: a free one), and stops it at the end of the test.
func natsServer(t testing.TB, dir string, port int) *server.Server {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoSigs: true, NoLog: true})
	require.NoError(t, err)
	srv.Start()
	require.True(t, srv.ReadyForConnections(10*time.Second), "nats-server starts")
	t.Cleanup(srv.Shutdown)
	return srv
}

// client connects to srv for the test's own requests and subscriptions.
func client(t testing.TB, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// decoded returns raw as a natsbus config, the workspace filled in as
// dshhost fills it.
func decoded(t testing.TB, s *stacktest.Stack, raw map[string]any) natsbus.Config {
	t.Helper()
	cfg, err := config.Decode(natsbus.Plugin, raw)
	require.NoError(t, err)
	c := cfg.(natsbus.Config)
	c.UseWorkspace(s.W)
	return c
}

// mountBus mounts natsbus with raw as its config on s, the workspace
// filled in as dshhost fills it, and waits for it to settle.
func mountBus(t testing.TB, s *stacktest.Stack, raw map[string]any) *host.Instance {
	t.Helper()
	inst, err := s.Host.Plugin(context.Background(), natsbus.Plugin, decoded(t, s, raw), host.ID("natsbus"))
	require.NoError(t, err)
	_ = inst.Wait(t.Context())
	return inst
}

// answer serves the intents on subject.intent.> with fn's decision and
// hands each request to seen.
func answer(t testing.TB, nc *nats.Conn, fn func(m *nats.Msg, in wire.Intent) any) {
	t.Helper()
	sub, err := nc.Subscribe("dsh.intent.>", func(m *nats.Msg) {
		var in wire.Intent
		_ = json.Unmarshal(m.Data, &in)
		raw, _ := json.Marshal(fn(m, in))
		_ = m.Respond(raw)
	})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	t.Cleanup(func() { _ = sub.Unsubscribe() })
}

// storedEvent is a CloudEvent as natsbus stores it, with the §1 params of
// fs/observed and conversation/closed as data.
type storedEvent struct {
	SpecVersion     string `json:"specversion"`
	ID              string `json:"id"`
	Source          string `json:"source"`
	Type            string `json:"type"`
	Subject         string `json:"subject"`
	Time            string `json:"time"`
	DataContentType string `json:"datacontenttype"`
	Data            struct {
		wire.Observed
		Conversation string `json:"conversation"`
	} `json:"data"`
	// Of the NATS message:
	NATSSubject string `json:"-"`
	MsgID       string `json:"-"`
}

// trail waits until stream holds n events and returns them all, oldest
// first.
func trail(t testing.TB, nc *nats.Conn, stream string, n int) []storedEvent {
	t.Helper()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	var st jetstream.Stream
	require.Eventually(t, func() bool {
		st, err = js.Stream(t.Context(), stream)
		if err != nil {
			return false
		}
		info, err := st.Info(t.Context())
		return err == nil && info.State.Msgs >= uint64(n)
	}, 20*time.Second, 10*time.Millisecond, "the stream gets %d events", n)
	info, err := st.Info(t.Context())
	require.NoError(t, err)
	var out []storedEvent
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		m, err := st.GetMsg(t.Context(), seq)
		require.NoError(t, err)
		var ev storedEvent
		require.NoError(t, json.Unmarshal(m.Data, &ev), "%s", m.Data)
		ev.NATSSubject, ev.MsgID = m.Subject, m.Header.Get("Nats-Msg-Id")
		out = append(out, ev)
	}
	return out
}

func write(s *stacktest.Stack, conv *tools.Conversation, path, content string) tools.Result {
	args, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
	return s.Call(context.Background(), conv, "write", string(args))
}

func edit(s *stacktest.Stack, conv *tools.Conversation, path, from, to string) tools.Result {
	args, _ := json.Marshal(map[string]string{"file_path": path, "old_string": from, "new_string": to})
	return s.Call(context.Background(), conv, "edit", string(args))
}

func read(s *stacktest.Stack, conv *tools.Conversation, path string) tools.Result {
	args, _ := json.Marshal(map[string]string{"file_path": path})
	return s.Call(context.Background(), conv, "read", string(args))
}

// stateOf returns the entry's state for `dshhost plugins`.
func stateOf(s *stacktest.Stack) wire.State { return wire.States(s.Host)["natsbus"] }

func rel(p string) string { return filepath.ToSlash(p) }
