//go:build natsbus

package natsbus_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
)

// operatorServer starts a nats-server in operator mode (JWT auth, as nsc
// sets it up) with one account with JetStream; creds writes a credentials
// file for a new user of that account, or, with trusted false, of an
// account the server does not know.
func operatorServer(t *testing.T) (url string, creds func(trusted bool) string) {
	t.Helper()
	must := func(err error) { require.NoError(t, err) }
	okp, err := nkeys.CreateOperator()
	must(err)
	opub, _ := okp.PublicKey()
	oc := jwt.NewOperatorClaims(opub)
	skp, _ := nkeys.CreateAccount()
	spub, _ := skp.PublicKey()
	sjwt, err := jwt.NewAccountClaims(spub).Encode(okp)
	must(err)
	oc.SystemAccount = spub
	akp, _ := nkeys.CreateAccount()
	apub, _ := akp.PublicKey()
	ac := jwt.NewAccountClaims(apub)
	ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	ajwt, err := ac.Encode(okp)
	must(err)
	resolver := &server.MemAccResolver{}
	must(resolver.Store(apub, ajwt))
	must(resolver.Store(spub, sjwt))
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(),
		TrustedOperators: []*jwt.OperatorClaims{oc}, AccountResolver: resolver, SystemAccount: spub, NoSigs: true, NoLog: true})
	must(err)
	srv.Start()
	require.True(t, srv.ReadyForConnections(10*time.Second))
	t.Cleanup(srv.Shutdown)
	stranger, _ := nkeys.CreateAccount()
	return srv.ClientURL(), func(trusted bool) string {
		ukp, _ := nkeys.CreateUser()
		upub, _ := ukp.PublicKey()
		signer := akp
		if !trusted {
			signer = stranger
		}
		ujwt, err := jwt.NewUserClaims(upub).Encode(signer)
		must(err)
		seed, _ := ukp.Seed()
		b, err := jwt.FormatUserConfig(ujwt, seed)
		must(err)
		file := filepath.Join(t.TempDir(), "user.creds")
		must(os.WriteFile(file, b, 0o600))
		return file
	}
}

// A credentials file of a user the server trusts connects, and the trail
// flows; one it does not trust is refused at start: the entry fails under
// block, and is ACTIVE doing nothing under allow.
func TestCredentials(t *testing.T) {
	url, creds := operatorServer(t)

	s := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, s, map[string]any{"url": url, "credentials": creds(true), "audit": map[string]any{}})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	require.False(t, write(s, s.Conversation("c"), "a.txt", "x").IsError)
	require.NoError(t, s.Host.Shutdown(t.Context()))

	bad := creds(false)
	s = stacktest.New(t, stacktest.Options{})
	start := time.Now()
	inst = mountBus(t, s, map[string]any{"url": url, "credentials": bad, "audit": map[string]any{}})
	require.Equal(t, host.StateFailed, inst.State())
	assert.EqualError(t, inst.Err(), `plugin "natsbus": `+url+" refused the connection: nats: Authorization Violation")
	assert.Less(t, time.Since(start), 2*time.Second, "refused at once, not after the timeout")

	s = stacktest.New(t, stacktest.Options{})
	inst = mountBus(t, s, map[string]any{"url": url, "credentials": bad, "audit": map[string]any{},
		"guards": []any{"fs/write-intent"}, "onFailure": "allow"})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	assert.Equal(t, "failed: "+url+" refused the connection: nats: Authorization Violation", stateOf(s).Process)
	res := write(s, s.Conversation("c"), "a.txt", "x")
	assert.False(t, res.IsError, "no guard is asked: %s", res.Text())
}

// A credentials file that cannot be used fails the entry before any
// connection: missing, not a credentials file, or inside the workspace
// (where the tools could read it).
func TestUnusableCredentials(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	notCreds := filepath.Join(t.TempDir(), "nats.creds")
	require.NoError(t, os.WriteFile(notCreds, []byte("user=me\n"), 0o600))
	inside := filepath.Join(s.W, "nats.creds")
	require.NoError(t, os.WriteFile(inside, []byte("-----BEGIN NATS USER JWT-----\n"), 0o600))
	missing := filepath.Join(t.TempDir(), "missing.creds")
	for file, want := range map[string]string{
		missing:  `plugin "natsbus": credentials: open ` + missing + ": no such file or directory",
		notCreds: `plugin "natsbus": credentials: ` + notCreds + " is not a NATS credentials file (a user JWT and its nkey seed, as nsc writes them)",
		inside:   `plugin "natsbus": credentials "` + inside + `" is inside the workspace "` + s.W + `", where the tools could read or change it; keep it outside`,
	} {
		inst := mountBus(t, s, map[string]any{"url": "nats://127.0.0.1:1", "credentials": file})
		require.Equal(t, host.StateFailed, inst.State(), file)
		assert.EqualError(t, inst.Err(), want)
		require.NoError(t, inst.Dispose(t.Context()))
	}
}
