package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
)

func intent(path string, rel *string) []byte {
	b, _ := json.Marshal(wire.Intent{Target: wire.Target{Path: path, Rel: rel}})
	return b
}

func str(s string) *string { return &s }

// The list of ../protected.txt refuses by rel, whatever the display path
// says; everything else goes on; an unreadable intent is refused.
func TestDecide(t *testing.T) {
	list, err := readList("../protected.txt")
	require.NoError(t, err)
	cases := []struct {
		subject, path string
		rel           *string
		want          wire.Decision
	}{
		{"dsh.intent.fs.write-intent", "/w/notes.txt", str("notes.txt"), wire.Decision{Decision: "next"}},
		{"dsh.intent.fs.write-intent", "/w/link.txt", str(".env"), wire.Decision{Decision: "deny", Code: "CENTRAL_POLICY",
			Message: `cannot write "/w/link.txt": .env is protected by the central policy (.env*)`}},
		{"dsh.intent.fs.edit-intent", "/w/a/b/key.pem", str("a/b/key.pem"), wire.Decision{Decision: "deny", Code: "CENTRAL_POLICY",
			Message: `cannot edit "/w/a/b/key.pem": a/b/key.pem is protected by the central policy (**/*.pem)`}},
		{"dsh.intent.fs.remove-intent", "/w/secrets/x", str("secrets/x"), wire.Decision{Decision: "deny", Code: "CENTRAL_POLICY",
			Message: `cannot change "/w/secrets/x": secrets/x is protected by the central policy (secrets/**)`}},
		{"dsh.intent.fs.write-intent", "/elsewhere/.env", nil, wire.Decision{Decision: "next"}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, decide(list, c.subject, intent(c.path, c.rel)), c.path)
	}
	assert.Equal(t, "deny", decide(list, "dsh.intent.fs.write-intent", []byte("not json")).Decision)
}

// The guard answers requests on <subject>.intent.> from its queue group,
// and logs each refusal with the host that asked.
func TestTheGuardAnswersOverNATS(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true, NoLog: true})
	require.NoError(t, err)
	srv.Start()
	require.True(t, srv.ReadyForConnections(5*time.Second))
	defer srv.Shutdown()
	list := filepath.Join(t.TempDir(), "list.txt")
	require.NoError(t, os.WriteFile(list, []byte("# comment\n\nsecrets/**\n"), 0o644))

	ctx, cancel := context.WithCancel(t.Context())
	var log bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-server", srv.ClientURL(), "-subject", "fleet", "-list", list, "-protect", "*.pem"}, &safeWriter{b: &log})
	}()

	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	defer nc.Close()
	ask := func(rel string) wire.Decision {
		msg := &nats.Msg{Subject: "fleet.intent.fs.write-intent", Data: intent("/w/"+rel, &rel), Header: nats.Header{"Dsh-Host": {"build-7"}}}
		var reply *nats.Msg
		require.Eventually(t, func() bool { // until the guard subscribed
			reply, err = nc.RequestMsg(msg, time.Second)
			return err == nil
		}, 5*time.Second, 10*time.Millisecond)
		var d wire.Decision
		require.NoError(t, json.Unmarshal(reply.Data, &d))
		return d
	}
	assert.Equal(t, "next", ask("a.txt").Decision)
	assert.Equal(t, "deny", ask("secrets/k").Decision)
	assert.Equal(t, "deny", ask("k.pem").Decision)
	cancel()
	require.NoError(t, <-done)
	assert.Contains(t, log.String(), "guard: answering fleet.intent.> (queue dsh-guards) with 2 protected patterns")
	assert.Contains(t, log.String(), `guard: fleet.intent.fs.write-intent from build-7: cannot write "/w/secrets/k"`)
}

// safeWriter serialises the guard's log lines, written from the
// subscription's goroutine.
type safeWriter struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *safeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
