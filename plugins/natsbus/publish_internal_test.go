//go:build natsbus

package natsbus

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
)

// A retry of an event the stream already holds (its ack was lost) is
// stored once and acknowledged as a duplicate, so the publisher goes on
// to the next event instead of retrying it for 9 minutes; the stream is
// created by the first publish when absent.
func TestARetriedEventIsStoredOnce(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true})
	require.NoError(t, err)
	srv.Start()
	t.Cleanup(srv.Shutdown)
	require.True(t, srv.ReadyForConnections(10*time.Second))
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)

	b := &bus{cfg: Config{Subject: "dsh", Audit: &Audit{}, Timeout: 2 * time.Second}, host: "h", nc: nc, js: js,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	b.live, b.drop = context.WithCancel(context.Background())
	tr := newTrail(10, b.log, "dshhost://h/w", b.publish)
	ev, err := tr.cloudEvent(pending{at: time.Now(), payload: wire.Closed{Conversation: "c"}})
	require.NoError(t, err)
	other, err := tr.cloudEvent(pending{at: time.Now(), payload: wire.Closed{Conversation: "d"}})
	require.NoError(t, err)

	require.NoError(t, b.publish(t.Context(), ev))
	require.NoError(t, b.publish(t.Context(), ev), "the retry is acked")
	require.NoError(t, b.publish(t.Context(), other))
	st, err := js.Stream(t.Context(), DefaultStream)
	require.NoError(t, err)
	info, err := st.Info(t.Context())
	require.NoError(t, err)
	assert.Equal(t, uint64(2), info.State.Msgs, "the retried event once, the next one once")
	m, err := st.GetMsg(t.Context(), 1)
	require.NoError(t, err)
	assert.Equal(t, ev.id, m.Header.Get("Nats-Msg-Id"))
}
