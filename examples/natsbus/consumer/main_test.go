package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The consumer prints every stored event once, oldest first, as stored,
// one a line, and stops at the end of the stream; -subject filters.
func TestTheConsumerPrintsTheTrail(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true})
	require.NoError(t, err)
	srv.Start()
	require.True(t, srv.ReadyForConnections(5*time.Second))
	defer srv.Shutdown()
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, err = js.CreateStream(t.Context(), jetstream.StreamConfig{Name: "DSH_AUDIT", Subjects: []string{"dsh.audit.>"}})
	require.NoError(t, err)

	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-server", srv.ClientURL()}, &out))
	assert.Empty(t, out.String(), "an empty trail prints nothing and ends")

	events := []string{
		`{"id":"1","subject":"a.txt","data":{"actor":{"tool":"write"}}}`,
		`{"id":"2","subject":"a.txt","data":{"actor":{"tool":"edit"}}}`,
		`{"id":"3","subject":"b.txt","data":{"actor":{"tool":"write"}}}`,
	}
	for i, ev := range events {
		host := []string{"s1", "s2", "s1"}[i]
		_, err := js.Publish(t.Context(), "dsh.audit."+host+".fs.observed", []byte(ev))
		require.NoError(t, err)
	}
	out.Reset()
	require.NoError(t, run(t.Context(), []string{"-server", srv.ClientURL()}, &out))
	assert.Equal(t, strings.Join(events, "\n")+"\n", out.String())
	out.Reset()
	require.NoError(t, run(t.Context(), []string{"-server", srv.ClientURL(), "-subject", "dsh.audit.s1.>"}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	for _, l := range lines {
		var ev struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(l), &ev))
		assert.Contains(t, []string{"1", "3"}, ev.ID)
	}
}
