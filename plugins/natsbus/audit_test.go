//go:build natsbus

package natsbus_test

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
)

// Every observation and every closed conversation is in the stream once,
// as a CloudEvents 1.0 structured event (§4): its id a UUID that is also
// the message's Nats-Msg-Id, the source, the type, the target's rel as
// subject, the time, the §1 params as data; on the subject
// <subject>.audit.<host>.<event>. The stream natsbus creates takes
// <subject>.audit.> only, with a 10-minute duplicate window.
func TestTheTrailHoldsEveryEventOnceAsACloudEvent(t *testing.T) {
	srv := natsServer(t, t.TempDir(), -1)
	nc := client(t, srv.ClientURL())
	s := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, s, map[string]any{"url": srv.ClientURL(), "host": "build-7", "subject": "fleet.a",
		"audit": map[string]any{"stream": "TRAIL"}})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())

	before := time.Now()
	conv := s.Conversation("test/c/1")
	require.False(t, write(s, conv, "a.txt", "alpha\n").IsError)
	require.False(t, read(s, conv, "a.txt").IsError)
	require.False(t, edit(s, conv, "a.txt", "alpha", "beta").IsError)
	require.True(t, read(s, conv, "missing.txt").IsError)
	require.NoError(t, events.ConversationClosed.Emit(context.Background(), s.Host.Root(), "test/c/1"))

	evs := trail(t, nc, "TRAIL", 5)
	require.Len(t, evs, 5)
	tools := []string{"write", "read", "edit", "read"}
	for i, ev := range evs {
		assert.Equal(t, "1.0", ev.SpecVersion)
		_, err := uuid.Parse(ev.ID)
		assert.NoError(t, err, "the id is a UUID")
		assert.Equal(t, ev.ID, ev.MsgID, "Nats-Msg-Id is the event id")
		assert.Equal(t, "dshhost://build-7"+s.W, ev.Source)
		at, err := time.Parse(time.RFC3339Nano, ev.Time)
		require.NoError(t, err)
		assert.False(t, at.Before(before.Truncate(time.Microsecond)), "the time it happened")
		assert.Equal(t, "application/json", ev.DataContentType)
		if i == 4 {
			assert.Equal(t, "dev.dsh.conversation.closed", ev.Type)
			assert.Equal(t, "fleet.a.audit.build-7.conversation.closed", ev.NATSSubject)
			assert.Empty(t, ev.Subject)
			assert.Equal(t, "test/c/1", ev.Data.Conversation)
			continue
		}
		assert.Equal(t, "dev.dsh.fs.observed", ev.Type)
		assert.Equal(t, "fleet.a.audit.build-7.fs.observed", ev.NATSSubject)
		want := "a.txt"
		if i == 3 {
			want = "missing.txt"
		}
		assert.Equal(t, want, ev.Subject, "the subject is the target's rel")
		assert.Equal(t, want, *ev.Data.Target.Rel)
		assert.Equal(t, filepath.Join(s.W, want), *ev.Data.Target.Key)
		assert.Equal(t, tools[i], ev.Data.Actor.Tool)
		assert.Equal(t, "test/c/1", *ev.Data.Actor.Conversation)
		assert.Equal(t, "test", ev.Data.Actor.Principal)
		assert.NotEmpty(t, ev.Data.Actor.Call)
		if i == 3 {
			assert.Equal(t, "absent", ev.Data.Kind)
			assert.Nil(t, ev.Data.Version)
		} else {
			assert.Equal(t, "present", ev.Data.Kind)
			assert.NotEmpty(t, *ev.Data.Version)
		}
	}
	assert.Equal(t, *evs[0].Data.Version, *evs[1].Data.Version, "the read saw what the write wrote")
	assert.NotEqual(t, *evs[1].Data.Version, *evs[2].Data.Version, "the edit made a new version")

	js, err := jetstream.New(nc)
	require.NoError(t, err)
	st, err := js.Stream(t.Context(), "TRAIL")
	require.NoError(t, err)
	info, err := st.Info(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"fleet.a.audit.>"}, info.Config.Subjects, "never an intent subject")
	assert.Equal(t, 10*time.Minute, info.Config.Duplicates)
	assert.Equal(t, jetstream.FileStorage, info.Config.Storage)
	assert.Equal(t, uint64(0), stateOf(s).Dropped)
}

// An existing stream is used as it is: natsbus neither changes nor
// replaces it.
func TestAnExistingStreamIsUsedAsItIs(t *testing.T) {
	srv := natsServer(t, t.TempDir(), -1)
	nc := client(t, srv.ClientURL())
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, err = js.CreateStream(t.Context(), jetstream.StreamConfig{Name: "DSH_AUDIT", Subjects: []string{"dsh.audit.>"},
		Duplicates: time.Hour, MaxAge: 24 * time.Hour, Storage: jetstream.MemoryStorage})
	require.NoError(t, err)
	s := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, s, map[string]any{"url": srv.ClientURL(), "audit": map[string]any{}})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	require.False(t, write(s, s.Conversation("c"), "a.txt", "x").IsError)
	evs := trail(t, nc, "DSH_AUDIT", 1)
	assert.Len(t, evs, 1)
	st, err := js.Stream(t.Context(), "DSH_AUDIT")
	require.NoError(t, err)
	info, err := st.Info(t.Context())
	require.NoError(t, err)
	assert.Equal(t, time.Hour, info.Config.Duplicates)
	assert.Equal(t, jetstream.MemoryStorage, info.Config.Storage)
}

// NATS down when the server starts: the entry is ACTIVE and keeps trying;
// a guarded intent fails at once per onFailure (block: nothing written);
// the audit events of the calls that go on wait, and once NATS is up they
// are all in the stream.
func TestNATSDownAtStartLosesNoEvent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	url := "nats://127.0.0.1:" + strconv.Itoa(port)

	s := stacktest.New(t, stacktest.Options{})
	start := time.Now()
	inst := mountBus(t, s, map[string]any{"url": url, "audit": map[string]any{}, "guards": []any{"fs/edit-intent"},
		"timeout": "300ms"})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	assert.Less(t, time.Since(start), 2*time.Second, "the start waits for the timeout, not for NATS")
	assert.Contains(t, stateOf(s).Process, "reconnecting to "+url)

	conv := s.Conversation("c")
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		res := write(s, conv, f, "x\n") // writes are not guarded here
		require.False(t, res.IsError, res.Text())
	}
	require.False(t, read(s, conv, "a.txt").IsError)
	res := edit(s, conv, "a.txt", "x", "y")
	assert.Equal(t, "PLUGIN_UNAVAILABLE", res.Code(), res.Text())
	assert.Contains(t, res.Text(), `plugin "natsbus" is unavailable: not connected to NATS (`+url+")")
	assert.Contains(t, stateOf(s).Process, "4 audit events waiting")

	srv := natsServer(t, t.TempDir(), port)
	evs := trail(t, client(t, srv.ClientURL()), "DSH_AUDIT", 4)
	var got []string
	for _, ev := range evs {
		got = append(got, ev.Data.Actor.Tool+" "+ev.Subject)
	}
	assert.Equal(t, []string{"write a.txt", "write b.txt", "write c.txt", "read a.txt"}, got, "each once, in order; the blocked edit is not there")
	require.Eventually(t, func() bool { return stateOf(s).Process == "connected to "+url }, 5*time.Second, 10*time.Millisecond)
	res = edit(s, conv, "a.txt", "x", "y")
	assert.Contains(t, res.Text(), "no responders on dsh.intent.fs.edit-intent", "connected now: no guard answers")
}
