//go:build natsbus

package natsbus_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/plugins/natsbus"
	_ "github.com/dsh-go/dsh/plugins/standard"
)

// Every key is checked before anything starts, each problem at its key.
func TestTheConfigIsCheckedKeyByKey(t *testing.T) {
	cases := []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{}, "url: natsbus: give url (nats://host:4222) or embedded: true"},
		{map[string]any{"url": "notaurl"}, `url: natsbus: must be a server URL such as nats://host:4222 (nats, tls, ws or wss), not "notaurl"`},
		{map[string]any{"url": "127.0.0.1:4222"}, `url: natsbus: must be a server URL such as nats://host:4222`},
		{map[string]any{"url": "http://x:4222"}, `not "http://x:4222"`},
		{map[string]any{"url": "nats://host:99999"}, `url: natsbus: the port of "nats://host:99999" must be a number from 1 to 65535, not "99999"`},
		{map[string]any{"url": "nats://u:secret@host:0"}, `url: natsbus: the port of "nats://u:xxxxx@host:0" must be a number`},
		{map[string]any{"url": "nats://a:4222,,nats://b:4222"}, "url: natsbus: an empty server in the list"},
		{map[string]any{"url": "nats://:4222"}, `url: natsbus: the server URL "nats://:4222" has no host`},
		{map[string]any{"url": "nats://x", "embedded": true}, "embedded: natsbus: url and embedded: true exclude each other"},
		{map[string]any{"url": "nats://x", "listen": "127.0.0.1:4222"}, "listen: natsbus: only the embedded server listens"},
		{map[string]any{"url": "nats://x", "dataDir": "/tmp/x"}, "dataDir: natsbus: only the embedded server has a data directory"},
		{map[string]any{"embedded": true, "credentials": "/etc/x.creds"}, "credentials: natsbus: the embedded server takes no credentials"},
		{map[string]any{"embedded": true, "listen": "4222"}, `listen: natsbus: must be host:port, e.g. 127.0.0.1:4222, not "4222"`},
		{map[string]any{"embedded": true, "listen": "127.0.0.1:x"}, `listen: natsbus: the port must be a number from 0 to 65535, not "x"`},
		{map[string]any{"url": "nats://x", "subject": "dsh.>"}, `subject: natsbus: must be subject tokens of [A-Za-z0-9_-] joined by dots, without wildcards, e.g. dsh, not "dsh.>"`},
		{map[string]any{"url": "nats://x", "audit": map[string]any{"stream": "a.b"}}, `audit.stream: natsbus: must be a stream name of [A-Za-z0-9_-], e.g. DSH_AUDIT, not "a.b"`},
		{map[string]any{"url": "nats://x", "audit": map[string]any{"maxAge": "5m"}}, "audit.maxAge: natsbus: must be 0 (keep every event) or at least 10m, the duplicate window"},
		{map[string]any{"url": "nats://x", "audit": map[string]any{"replicas": 7}}, "audit.replicas: natsbus: must be from 1 to 5"},
		{map[string]any{"url": "nats://x", "guards": []any{"fs/observed"}}, `guards[0]: natsbus: "fs/observed" is not an intent a remote guard can be asked about: fs/write-intent, fs/edit-intent`},
		{map[string]any{"url": "nats://x", "timeout": "0s"}, "timeout: natsbus: must be a positive duration, e.g. 2s"},
		{map[string]any{"url": "nats://x", "onFailure": "ignore"}, `onFailure: natsbus: must be block or allow, not "ignore"`},
		{map[string]any{"url": "nats://x", "queue": 0}, "queue: natsbus: must be a positive integer"},
		{map[string]any{"url": "nats://x", "audit": map[string]any{"stream": "X", "mode": "fast"}}, "mode"},
	}
	for _, c := range cases {
		_, err := config.Decode(natsbus.Plugin, c.raw)
		assert.ErrorContains(t, err, c.want, "%v", c.raw)
	}
	for _, ok := range []string{"nats://x", "nats://u:p@nats-1.example:4222, tls://nats-2.example:4443", "wss://[::1]:443", "nats://tok@host"} {
		_, err := config.Decode(natsbus.Plugin, map[string]any{"url": ok})
		assert.NoError(t, err, ok)
	}
	cfg, err := config.Decode(natsbus.Plugin, map[string]any{"url": "nats://x", "audit": map[string]any{}})
	require.NoError(t, err)
	c := cfg.(natsbus.Config)
	assert.Equal(t, "dsh", c.Subject)
	assert.Equal(t, 2*time.Second, c.Timeout)
	assert.Equal(t, wire.Block, c.OnFailure)
	assert.Equal(t, 1000, c.Queue)
	assert.NotNil(t, c.Audit, "audit: {} turns the trail on, to DSH_AUDIT")
}

// The example deployment of examples/natsbus loads, its host and password
// coming from the environment as docs/fleet.md says.
func TestTheExampleDeploymentLoads(t *testing.T) {
	dep, err := filepath.Abs("../../examples/natsbus/dsh.yaml")
	require.NoError(t, err)
	d, err := config.Load(config.Options{File: dep, Workspace: t.TempDir(),
		Environ: []string{"DSH_NATSBUS_URL=nats://build-7:secret@nats-1.example:4222", "DSH_NATSBUS_HOST=build-8"}})
	require.NoError(t, err)
	var found bool
	for _, e := range d.Entries {
		if e.Name == "natsbus" {
			found = true
			c := e.Config.(natsbus.Config)
			assert.Equal(t, "nats://build-7:secret@nats-1.example:4222", c.URL)
			assert.Equal(t, "build-8", c.Host)
			assert.Equal(t, []string{"fs/write-intent", "fs/edit-intent"}, c.Guards)
			assert.Equal(t, "DSH_AUDIT", c.Audit.Stream)
			assert.Equal(t, 500*time.Millisecond, c.Timeout)
		}
	}
	assert.True(t, found)
}

// `dshhost config` prints the keys in their file form: durations as
// strings that load back, the url without its password or token.
func TestTheConfigPrintsWithoutSecrets(t *testing.T) {
	for url, shown := range map[string]string{
		"nats://build-7:s3cret@nats-1.example:4222,nats://build-7:s3cret@nats-2.example:4222": "nats://build-7:xxxxx@nats-1.example:4222,nats://build-7:xxxxx@nats-2.example:4222",
		"nats://s3cret@nats-1.example:4222":                                                   "nats://xxxxx@nats-1.example:4222",
		"nats://nats-1.example:4222":                                                          "nats://nats-1.example:4222",
	} {
		cfg, err := config.Decode(natsbus.Plugin, map[string]any{"url": url, "timeout": "750ms",
			"audit": map[string]any{"maxAge": "720h"}})
		require.NoError(t, err)
		out, err := json.Marshal(cfg)
		require.NoError(t, err)
		assert.NotContains(t, string(out), "s3cret")
		var keys map[string]any
		require.NoError(t, json.Unmarshal(out, &keys))
		assert.Equal(t, shown, keys["url"])
		assert.Equal(t, "750ms", keys["timeout"])
		assert.Equal(t, "720h0m0s", keys["audit"].(map[string]any)["maxAge"])
		back, err := config.Decode(natsbus.Plugin, keys)
		require.NoError(t, err, "the printed form loads back")
		want := cfg.(natsbus.Config)
		want.URL = shown
		want.Audit.Stream, want.Audit.Replicas = "DSH_AUDIT", 1 // the defaults, printed as they take effect
		assert.Equal(t, "DSH_AUDIT", keys["audit"].(map[string]any)["stream"])
		assert.Equal(t, want, back.(natsbus.Config))
	}
}
