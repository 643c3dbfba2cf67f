//go:build natsbus

package natsbus_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
)

// fleetConf returns the nats-server configuration of docs/fleet.md, its
// store directory replaced by dir.
func fleetConf(t *testing.T, dir string) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/fleet.md")
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)<!-- nats-server.conf: plugins/natsbus/permissions_test.go runs it -->\n```\n(.*?)```\n").FindSubmatch(doc)
	require.NotNil(t, m, "docs/fleet.md has the configuration")
	conf := strings.Replace(string(m[1]), "/var/lib/nats", dir, 1)
	require.NotEqual(t, string(m[1]), conf, "the store directory is set")
	file := filepath.Join(t.TempDir(), "nats-server.conf")
	require.NoError(t, os.WriteFile(file, []byte(conf), 0o600))
	return file
}

// The least permissions of docs/fleet.md, run as written: a dshhost with
// its user publishes its audit events (into the stream the operator
// created) and asks the example guard, which answers from its own account;
// the example consumer reads the trail as the auditor. The server's user
// can do nothing more: not answer intents, not write another host's
// trail, not create or delete streams.
func TestTheDocumentedPermissionsAreEnoughAndNoMore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example guard and consumer; skipped under -short")
	}
	for _, v := range []string{"BUILD_7", "AUDITOR", "ADMIN", "GUARD"} {
		t.Setenv("DSH_"+v+"_PASSWORD", strings.ToLower(v)+"-secret")
	}
	opts, err := server.ProcessConfigFile(fleetConf(t, t.TempDir()))
	require.NoError(t, err)
	opts.Host, opts.Port, opts.NoSigs, opts.NoLog = "127.0.0.1", -1, true, true
	srv, err := server.NewServer(opts)
	require.NoError(t, err)
	srv.Start()
	require.True(t, srv.ReadyForConnections(10*time.Second))
	t.Cleanup(srv.Shutdown)
	addr := strings.TrimPrefix(srv.ClientURL(), "nats://")
	url := func(user string) string {
		return "nats://" + user + ":" + strings.ReplaceAll(strings.ToLower(user), "-", "_") + "-secret@" + addr
	}

	// The operator creates the stream, as the doc's `nats stream add` does.
	admin := client(t, url("admin"))
	js, err := jetstream.New(admin)
	require.NoError(t, err)
	_, err = js.CreateStream(t.Context(), jetstream.StreamConfig{Name: "DSH_AUDIT", Subjects: []string{"dsh.audit.>"},
		Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute})
	require.NoError(t, err)

	startGuard(t, "-server", url("guard"), "-protect", "secrets/**")
	_, _, consumerBin := build(t)

	s := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, s, map[string]any{"url": url("build-7"), "host": "build-7", "audit": map[string]any{},
		"guards": []any{"fs/write-intent"}})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	assert.Equal(t, "connected to nats://build-7:xxxxx@"+addr, stateOf(s).Process, "the password is not shown")
	res := write(s, s.Conversation("c"), "a.txt", "x")
	require.False(t, res.IsError, res.Text())
	res = write(s, s.Conversation("c"), "secrets/k.txt", "x")
	assert.Equal(t, "CENTRAL_POLICY", res.Code(), "the guard answers across accounts: %s", res.Text())
	require.NoError(t, s.Host.Shutdown(t.Context()))

	out, err := exec.Command(consumerBin, "-server", url("auditor")).Output()
	require.NoError(t, err, "the consumer reads as the auditor: %s", exitErr(err))
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 1)
	var ev storedEvent
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &ev))
	assert.Equal(t, "a.txt", ev.Subject)

	// And nothing more.
	errs := make(chan error, 10)
	nc, err := nats.Connect(url("build-7"), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { errs <- err }))
	require.NoError(t, err)
	defer nc.Close()
	_, err = nc.Subscribe("dsh.intent.>", func(*nats.Msg) {})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	assert.ErrorContains(t, <-errs, `Permissions Violation for Subscription to "dsh.intent.>"`, "a server cannot answer intents")
	require.NoError(t, nc.Publish("dsh.audit.build-8.fs.observed", []byte("{}")))
	require.NoError(t, nc.Flush())
	assert.ErrorContains(t, <-errs, `Permissions Violation for Publish to "dsh.audit.build-8.fs.observed"`, "nor write another host's trail")
	njs, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	err = njs.DeleteStream(ctx, "DSH_AUDIT")
	assert.Error(t, err, "nor delete the trail")
	assert.ErrorContains(t, <-errs, "Permissions Violation for Publish to \"$JS.API.STREAM.DELETE.DSH_AUDIT\"")
}

func exitErr(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

// An audit stream that is absent and that the server's user may not
// create: under block the entry fails and says so; under allow it runs
// (its guards asked) and `dshhost plugins` shows the error.
func TestAnAbsentStreamThatCannotBeCreatedIsAnError(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "nats-server.conf")
	require.NoError(t, os.WriteFile(conf, []byte(`jetstream {store_dir: "`+t.TempDir()+`"}
accounts { DSH: { jetstream: enabled, users: [
  {user: build-7, password: pw, permissions: {publish: ["dsh.>", "_INBOX.>", "$JS.API.STREAM.INFO.DSH_AUDIT"], subscribe: ["_INBOX.>", "dsh.intent.>"]}}
]}}
`), 0o600))
	opts, err := server.ProcessConfigFile(conf)
	require.NoError(t, err)
	opts.Host, opts.Port, opts.NoSigs, opts.NoLog = "127.0.0.1", -1, true, true
	srv, err := server.NewServer(opts)
	require.NoError(t, err)
	srv.Start()
	require.True(t, srv.ReadyForConnections(10*time.Second))
	t.Cleanup(srv.Shutdown)
	url := "nats://build-7:pw@" + strings.TrimPrefix(srv.ClientURL(), "nats://")
	const want = "the audit stream DSH_AUDIT does not exist and this server could not create it"

	s := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, s, map[string]any{"url": url, "audit": map[string]any{}, "timeout": "500ms"})
	require.Equal(t, host.StateFailed, inst.State())
	assert.ErrorContains(t, inst.Err(), want)
	assert.ErrorContains(t, inst.Err(), `Permissions Violation for Publish to "$JS.API.STREAM.CREATE.DSH_AUDIT"`)

	nc := client(t, url)
	answer(t, nc, func(*nats.Msg, wire.Intent) any { return wire.Decision{Decision: "deny", Message: "central no"} })
	s = stacktest.New(t, stacktest.Options{})
	inst = mountBus(t, s, map[string]any{"url": url, "audit": map[string]any{}, "timeout": "500ms", "onFailure": "allow",
		"guards": []any{"fs/write-intent"}})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	st := stateOf(s).Process
	assert.True(t, strings.HasPrefix(st, "connected to nats://build-7:xxxxx@"), st)
	assert.Contains(t, st, "; "+want)
	assert.Equal(t, "Error: central no", write(s, s.Conversation("c"), "a.txt", "x").Text(), "the guards still run")
}
